// The few Grafana building blocks the dashboards use, so that their conventions (the datasource
// variable, uids, the tag, links, units, legends) are written once. Plain JSON, schemaVersion 39.
{
  datasource:: { type: 'prometheus', uid: '${datasource}' },

  target(expr, legend='', instant=false):: {
    datasource: $.datasource,
    expr: expr,
    legendFormat: if legend == '' then '__auto' else legend,
  } + (if instant then { instant: true, range: false, format: 'table' } else {}),

  local options = {
    timeseries: {
      legend: { displayMode: 'table', placement: 'bottom', calcs: ['lastNotNull', 'max'] },
      tooltip: { mode: 'multi', sort: 'desc' },
    },
    stat: {
      reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
      colorMode: 'value',
      graphMode: 'area',
    },
    table: { showHeader: true },
    bargauge: {
      displayMode: 'gradient',
      orientation: 'horizontal',
      reduceOptions: { calcs: ['lastNotNull'], fields: '', values: false },
    },
  },

  // A panel of `kind`; targets get refIds A, B, ... in order. `extra` overrides any field.
  panel(kind, title, description, targets, unit, w=12, h=8, extra={}):: {
    type: kind,
    title: title,
    description: description,
    datasource: $.datasource,
    targets: [targets[i] { refId: std.char(std.codepoint('A') + i) } for i in std.range(0, std.length(targets) - 1)],
    fieldConfig: {
      defaults: { unit: unit } +
                (if kind == 'timeseries' then { custom: { drawStyle: 'line', fillOpacity: 10 } } else {}),
      overrides: [],
    },
    options: std.get(options, kind, {}),
    gridPos: { w: w, h: h },
  } + (if kind == 'table' then { transformations: [{ id: 'merge', options: {} }] } else {}) + extra,

  textPanel(title, content, w=24, h=3):: {
    type: 'text',
    title: title,
    gridPos: { w: w, h: h },
    options: { mode: 'markdown', content: content },
  },

  // A multi-value query variable over label_values(), "All" selected.
  queryVariable(name, label, definition):: {
    name: name,
    label: label,
    type: 'query',
    datasource: $.datasource,
    query: { query: definition, refId: name },
    definition: definition,
    includeAll: true,
    allValue: '.*',
    multi: true,
    refresh: 2,
    sort: 1,
    current: { selected: true, text: ['All'], value: ['$__all'] },
  },

  // Places panels left to right in a 24-column grid and numbers them (stable ids).
  layout(panels)::
    local step(acc, p) =
      local wrap = acc.x + p.gridPos.w > 24;
      local x = if wrap then 0 else acc.x;
      local y = if wrap then acc.y + acc.rowH else acc.y;
      local rowH = if wrap then 0 else acc.rowH;
      {
        x: x + p.gridPos.w,
        y: y,
        rowH: std.max(rowH, p.gridPos.h),
        panels: acc.panels + [p { id: std.length(acc.panels) + 1, gridPos+: { x: x, y: y } }],
      };
    std.foldl(step, panels, { x: 0, y: 0, rowH: 0, panels: [] }).panels,

  // Repeated quantiles of a histogram's rate.
  quantiles(metric, by, legendPrefix, selector):: [
    $.target('histogram_quantile(%s, sum by (%s) (rate(%s_bucket{%s}[$__rate_interval])))' % [q, by, metric, selector],
             '%sp%d' % [legendPrefix, std.parseJson(q) * 100])
    for q in ['0.5', '0.95', '0.99']
  ],

  // A dashboard with the shared variables (datasource, cluster, extra ones, daemon URL) and links.
  dashboard(config, uid, title, description, panels, extraVariables=[]):: {
    local tags = config.grafanaDashboardTags,
    uid: uid,
    title: title,
    description: description,
    tags: tags,
    timezone: '',
    editable: true,
    graphTooltip: 1,
    schemaVersion: 39,
    version: 1,
    refresh: config.dashboardRefresh,
    time: { from: config.dashboardTimeFrom, to: 'now' },
    timepicker: {},
    annotations: { list: [] },
    fiscalYearStartMonth: 0,
    liveNow: false,
    weekStart: '',
    links: [
      {
        title: 'dagadvisor dashboards',
        type: 'dashboards',
        tags: tags,
        asDropdown: true,
        includeVars: true,
        keepTime: true,
        icon: 'external link',
        targetBlank: false,
        tooltip: '',
        url: '',
      },
      {
        title: 'dagadvisor web page',
        type: 'link',
        url: '${daemon_url}/',
        tags: [],
        asDropdown: false,
        includeVars: false,
        keepTime: false,
        icon: 'external link',
        targetBlank: true,
        tooltip: 'Recommendations, workflow graphs and Gantt charts',
      },
    ],
    templating: {
      list: [
        {
          name: 'datasource',
          label: 'Data source',
          type: 'datasource',
          query: 'prometheus',
          current: {},
          hide: 0,
          refresh: 1,
          regex: '',
        },
        $.queryVariable('cluster', 'Cluster', 'label_values(dagadvisor_build_info, %s)' % config.clusterLabel),
      ] + extraVariables + [
        {
          name: 'daemon_url',
          label: 'dagadvisor URL',
          type: 'textbox',
          query: config.daemonURL,
          current: { text: config.daemonURL, value: config.daemonURL },
          description: "Where Grafana users reach the daemon's web page and API.",
        },
      ],
    },
    panels: $.layout(panels),
  },
}

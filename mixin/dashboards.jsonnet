// dashboards/*.json: one Grafana dashboard per file (jsonnet -m dashboards/ -S).
local mixin = import 'mixin.libsonnet';
{
  [name]: std.manifestJsonEx(mixin.grafanaDashboards[name], '  ') + '\n'
  for name in std.objectFields(mixin.grafanaDashboards)
}

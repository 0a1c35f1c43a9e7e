#!/usr/bin/env python3
"""Writes the Grafana dashboards of dagadvisor (dashboards/*.json) from the definitions below.

The JSON files are committed so that users can import them as they are; this script is their
source, so that the conventions (datasource variable, uids, tag, links, units) are written once.
    python3 dashboards/generate.py           # rewrite the JSON files
    python3 dashboards/generate.py --check   # exit 1 if a committed file differs (CI)
"""
import json
import pathlib
import sys

OUT_DIR = pathlib.Path(__file__).resolve().parent
TAG = "dagadvisor"
SCHEMA_VERSION = 39
DS = {"type": "prometheus", "uid": "${datasource}"}
C = 'cluster=~"$cluster"'
RATE = "$__rate_interval"


def target(expr, legend="", instant=False, ref="A"):
    t = {"datasource": DS, "expr": expr, "legendFormat": legend or "__auto", "refId": ref}
    if instant:
        t.update({"instant": True, "range": False, "format": "table"})
    return t


def panel(kind, title, description, targets, unit, w=12, h=8, **extra):
    p = {
        "type": kind,
        "title": title,
        "description": description,
        "datasource": DS,
        "targets": [dict(t, refId=chr(ord("A") + i)) for i, t in enumerate(targets)],
        "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
        "options": {},
        "gridPos": {"w": w, "h": h},
    }
    if kind == "timeseries":
        p["fieldConfig"]["defaults"]["custom"] = {"drawStyle": "line", "fillOpacity": 10}
        p["options"] = {"legend": {"displayMode": "table", "placement": "bottom", "calcs": ["lastNotNull", "max"]},
                        "tooltip": {"mode": "multi", "sort": "desc"}}
    elif kind == "stat":
        p["options"] = {"reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False},
                        "colorMode": "value", "graphMode": "area"}
    elif kind == "table":
        p["transformations"] = [{"id": "merge", "options": {}}]
        p["options"] = {"showHeader": True}
    elif kind == "bargauge":
        p["options"] = {"displayMode": "gradient", "orientation": "horizontal",
                        "reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False}}
    p.update(extra)
    return p


def text_panel(title, content, w=24, h=3):
    return {"type": "text", "title": title, "gridPos": {"w": w, "h": h},
            "options": {"mode": "markdown", "content": content}}


def variables(extra=()):
    cluster = {
        "name": "cluster", "label": "Cluster", "type": "query", "datasource": DS,
        "query": {"query": "label_values(dagadvisor_build_info, cluster)", "refId": "cluster"},
        "definition": "label_values(dagadvisor_build_info, cluster)",
        "includeAll": True, "allValue": ".*", "multi": True, "refresh": 2, "sort": 1,
        "current": {"selected": True, "text": ["All"], "value": ["$__all"]},
    }
    daemon = {
        "name": "daemon_url", "label": "dagadvisor URL", "type": "textbox",
        "query": "http://dagadvisor.monitoring.svc:9731",
        "current": {"text": "http://dagadvisor.monitoring.svc:9731", "value": "http://dagadvisor.monitoring.svc:9731"},
        "description": "Where Grafana users reach the daemon's web page and API.",
    }
    datasource = {"name": "datasource", "label": "Data source", "type": "datasource", "query": "prometheus",
                  "current": {}, "hide": 0, "refresh": 1, "regex": ""}
    return {"list": [datasource, cluster, *extra, daemon]}


def layout(panels):
    """Places panels left to right in a 24-column grid and numbers them (stable ids)."""
    x = y = row_h = 0
    for i, p in enumerate(panels, start=1):
        w, h = p["gridPos"]["w"], p["gridPos"]["h"]
        if x + w > 24:
            x, y, row_h = 0, y + row_h, 0
        p["gridPos"].update({"x": x, "y": y})
        p["id"] = i
        x += w
        row_h = max(row_h, h)
    return panels


def dashboard(uid, title, description, panels, extra_vars=()):
    return {
        "uid": uid,
        "title": title,
        "description": description,
        "tags": [TAG],
        "timezone": "",
        "editable": True,
        "graphTooltip": 1,
        "schemaVersion": SCHEMA_VERSION,
        "version": 1,
        "refresh": "1m",
        "time": {"from": "now-6h", "to": "now"},
        "timepicker": {},
        "annotations": {"list": []},
        "fiscalYearStartMonth": 0,
        "liveNow": False,
        "weekStart": "",
        "links": [
            {"title": "dagadvisor dashboards", "type": "dashboards", "tags": [TAG], "asDropdown": True,
             "includeVars": True, "keepTime": True, "icon": "external link", "targetBlank": False,
             "tooltip": "", "url": ""},
            {"title": "dagadvisor web page", "type": "link", "url": "${daemon_url}/", "tags": [],
             "asDropdown": False, "includeVars": False, "keepTime": False, "icon": "external link",
             "targetBlank": True, "tooltip": "Recommendations, workflow graphs and Gantt charts"},
        ],
        "templating": variables(extra_vars),
        "panels": layout(panels),
    }


def quantiles(metric, by, legend_prefix):
    return [target('histogram_quantile(%s, sum by (%s) (rate(%s_bucket{%s}[%s])))' % (q, by, metric, C, RATE),
                   "%sp%s" % (legend_prefix, int(float(q) * 100))) for q in ("0.5", "0.95", "0.99")]


def overview():
    return dashboard("dagadvisor-overview", "dagadvisor / Overview",
                     "Scheduling latency, pending work, active recommendations and GPU waste.", [
        panel("stat", "Hoarded GPU nodes", "GPU nodes whose CPU or memory is held by non-GPU pods while GPU pods pend.",
              [target('sum(dagadvisor_gpu_node_hoarded{%s})' % C)], "none", w=6, h=4),
        panel("stat", "Free GPUs while GPU pods wait", "Unallocated GPUs (kube-state-metrics), shown with the GPUs "
              "asked for by unschedulable pods.",
              [target('sum(cluster:kube_node_gpus_free:sum{%s})' % C, "free"),
               target('sum(cluster:kube_pod_gpus_requested_unschedulable:sum{%s})' % C, "wanted by unschedulable pods")],
              "none", w=6, h=4),
        panel("stat", "GPU allocation", "Share of allocatable GPUs requested by pods (dagadvisor's analysis).",
              [target('sum(dagadvisor_gpus_requested{%s}) / sum(dagadvisor_gpus_allocatable{%s})' % (C, C))],
              "percentunit", w=6, h=4),
        panel("stat", "Stranded-resource findings", "Nodes with a resource left free because another is exhausted, "
              "and cluster fragmentation findings.",
              [target('sum(dagadvisor_findings{%s, kind="stranded-resources"})' % C)], "none", w=6, h=4),
        panel("timeseries", "Scheduling latency (pod SLI)", "Pod scheduling SLI: creation to binding, "
              "scheduler_pod_scheduling_sli_duration_seconds.",
              quantiles("scheduler_pod_scheduling_sli_duration_seconds", "le", ""), "s"),
        panel("timeseries", "Scheduling latency by profile (dagadvisor)", "p50/p95/p99 of pod scheduling latency "
              "per scheduler profile over dagadvisor's analysis window.",
              [target('dagadvisor_scheduling_latency_seconds{%s}' % C, "{{profile}} p{{quantile}}")], "s"),
        panel("timeseries", "Scheduling attempt latency by profile", "One scheduling attempt, by scheduler profile.",
              quantiles("scheduler_scheduling_attempt_duration_seconds", "profile, le", "{{profile}} "), "s"),
        panel("timeseries", "Pending pods by queue", "kube-scheduler's queues (active, backoff, unschedulable, gated).",
              [target('sum by (queue) (scheduler_pending_pods{%s})' % C, "{{queue}}")], "none"),
        panel("timeseries", "SLO error ratio (pods slower than 5.12 s)", "Share of pods scheduled later than the SLO "
              "threshold; the burn-rate alert fires above 14.4% (1 h) or 6% (6 h).",
              [target('cluster:scheduler_pod_scheduling_sli:error_ratio_rate5m{%s}' % C, "5m {{cluster}}"),
               target('cluster:scheduler_pod_scheduling_sli:error_ratio_rate1h{%s}' % C, "1h {{cluster}}")],
              "percentunit"),
        panel("timeseries", "Active recommendations by kind and severity", "dagadvisor's current recommendations.",
              [target('sum by (kind, severity) (dagadvisor_recommendations_active{%s})' % C, "{{kind}} ({{severity}})")],
              "none", fieldConfig={"defaults": {"unit": "none", "custom": {"drawStyle": "bars", "fillOpacity": 60,
                                                                            "stacking": {"mode": "normal"}}},
                                   "overrides": []}),
        panel("timeseries", "Unschedulable pods by plugin", "The filter plugin that rejected every node.",
              [target('sum by (plugin) (scheduler_unschedulable_pods{%s})' % C, "{{plugin}}")], "none"),
    ])


def workflow_runs():
    sel = '%s, dag=~"$dag"' % C
    dag_var = {
        "name": "dag", "label": "DAG", "type": "query", "datasource": DS,
        "query": {"query": 'label_values(dagadvisor_dag_run_makespan_seconds{%s}, dag)' % C, "refId": "dag"},
        "definition": 'label_values(dagadvisor_dag_run_makespan_seconds{%s}, dag)' % C,
        "includeAll": True, "allValue": ".*", "multi": True, "refresh": 2, "sort": 1,
        "current": {"selected": True, "text": ["All"], "value": ["$__all"]},
    }
    return dashboard("dagadvisor-workflow-runs", "dagadvisor / Workflow runs",
                     "Per-run makespan, critical path and waiting share of the top workflow runs.", [
        panel("timeseries", "Makespan vs critical path vs HEFT what-if", "Makespan (first task created to last "
              "finished), the critical path's length, and the makespan of a HEFT re-schedule on the same nodes.",
              [target('dagadvisor_dag_run_makespan_seconds{%s}' % sel, "makespan {{dag}}/{{run}}"),
               target('dagadvisor_dag_run_critical_path_seconds{%s}' % sel, "critical path {{dag}}/{{run}}"),
               target('dagadvisor_dag_run_whatif_makespan_seconds{%s}' % sel, "HEFT what-if {{dag}}/{{run}}")],
              "s"),
        panel("timeseries", "Wait share", "Share of a run's makespan its critical chain spent waiting for a node.",
              [target('dagadvisor_dag_run_wait_share_ratio{%s}' % sel, "{{dag}}/{{run}}")], "percentunit"),
        panel("table", "Slowest runs", "The ten runs with the longest makespan, with their critical path and "
              "efficiency. The critical-path tasks of a run are on the daemon's page (link above).",
              [target('topk(10, dagadvisor_dag_run_makespan_seconds{%s})' % sel, instant=True),
               target('dagadvisor_dag_run_critical_path_seconds{%s}' % sel, instant=True),
               target('dagadvisor_dag_run_efficiency_ratio{%s}' % sel, instant=True)], "s", w=24),
        panel("timeseries", "Pods waiting for the scheduler", "Pods in phase Pending, and those the scheduler "
              "already failed to place (kube-state-metrics).",
              [target('sum(kube_pod_status_phase{%s, phase="Pending"})' % C, "pending"),
               target('sum(kube_pod_status_unschedulable{%s})' % C, "unschedulable")], "none"),
        text_panel("Critical path, Gantt chart, HEFT what-if",
                   "Each run's tasks on the critical path, its Gantt chart per node and the HEFT what-if "
                   "schedule are on the daemon: [${daemon_url}/](${daemon_url}/) and "
                   "`${daemon_url}/api/v1/dags/{run}?format=svg`.", w=12, h=8),
    ], extra_vars=(dag_var,))


def nodes_and_pools():
    return dashboard("dagadvisor-nodes", "dagadvisor / Nodes and pools",
                     "Allocation per resource and pool, fragmentation per node, non-GPU pods on GPU nodes.", [
        panel("timeseries", "Allocation by pool and resource", "Requests of bound, unfinished pods divided by "
              "allocatable, per node-type pool.",
              [target('pool_resource:allocation:ratio{%s}' % C, "{{label_node_type}} {{resource}}")],
              "percentunit"),
        panel("table", "Free share per node (fragmentation)", "Share of each node's allocatable left unrequested: "
              "a resource free next to an exhausted one is stranded.",
              [target('1 - node_resource:allocation:ratio{%s, resource=~"cpu|memory|nvidia_com_gpu"}' % C,
                      instant=True)], "percentunit"),
        panel("timeseries", "Non-GPU pods on GPU nodes", "Running or starting pods that request no GPU, per GPU node.",
              [target('node:kube_pod_non_gpu_on_gpu_node:count{%s}' % C, "{{node}}")], "none"),
        panel("table", "Hoarded GPU nodes", "GPU nodes dagadvisor reports as hoarded: free GPUs and the share of CPU "
              "requested by non-GPU pods.",
              [target('dagadvisor_gpu_node_free_gpus{%s}' % C, instant=True),
               target('dagadvisor_gpu_node_non_gpu_cpu_share{%s}' % C, instant=True)], "none"),
        panel("timeseries", "Requested CPU per node", "CPU cores requested by bound, unfinished pods.",
              [target('node_resource:kube_pod_requests_bound:sum{%s, resource="cpu"}' % C, "{{node}}")], "none"),
        panel("stat", "Nodes", "Nodes and GPU nodes in dagadvisor's analysis.",
              [target('sum(dagadvisor_cluster_nodes{%s})' % C, "nodes"),
               target('sum(dagadvisor_cluster_gpu_nodes{%s})' % C, "GPU nodes")], "none"),
    ])


def daemon():
    return dashboard("dagadvisor-daemon", "dagadvisor / Daemon",
                     "The dagadvisor daemon itself: cycles, sources, staleness, detectors, queries.", [
        panel("stat", "Up", "Prometheus' scrape of the daemon.", [target('up{job="dagadvisor"}', "{{instance}}")],
              "none", w=6, h=4),
        panel("stat", "Analysis stale", "1 while the served analysis is stale.",
              [target('max(dagadvisor_analysis_stale{%s})' % C)], "bool", w=6, h=4),
        panel("stat", "Time since last good cycle", "Seconds since the last successful analysis cycle finished.",
              [target('time() - max(dagadvisor_last_successful_cycle_timestamp_seconds{%s})' % C)], "s", w=6, h=4),
        panel("stat", "Config reload", "1 when the last configuration (re)load succeeded.",
              [target('min(dagadvisor_config_last_reload_successful{%s})' % C)], "bool", w=6, h=4),
        panel("timeseries", "Cycle duration", "Wall time of successful analysis cycles.",
              quantiles("dagadvisor_cycle_duration_seconds", "le", ""), "s"),
        panel("timeseries", "Cycles by result", "Analysis cycles per second, successful and failed.",
              [target('sum by (result) (rate(dagadvisor_cycles_total{%s}[%s]))' % (C, RATE), "{{result}}")], "ops"),
        panel("timeseries", "Source up and data age", "Whether the data source answered, and the age of the data "
              "behind the served analysis.",
              [target('dagadvisor_source_up{%s}' % C, "up {{source}}"),
               target('dagadvisor_data_age_seconds{%s}' % C, "data age {{cluster}}")], "none",
              fieldConfig={"defaults": {"unit": "none"}, "overrides": [
                  {"matcher": {"id": "byRegexp", "options": "data age.*"},
                   "properties": [{"id": "unit", "value": "s"}, {"id": "custom.axisPlacement", "value": "right"}]}]}),
        panel("timeseries", "Detector duration", "Wall time of each detector in the last successful cycle.",
              [target('dagadvisor_detector_duration_seconds{%s}' % C, "{{detector}}")], "s"),
        panel("timeseries", "Queries to the source", "PromQL queries per second sent to the data source.",
              [target('sum by (source) (rate(dagadvisor_source_queries_total{%s}[%s]))' % (C, RATE), "{{source}}")],
              "reqps"),
        panel("timeseries", "Response bytes from the source", "Bytes per second decoded from the data source.",
              [target('sum by (source) (rate(dagadvisor_source_response_bytes_total{%s}[%s]))' % (C, RATE),
                      "{{source}}")], "Bps"),
    ])


DASHBOARDS = {"overview.json": overview, "workflow-runs.json": workflow_runs, "nodes-and-pools.json": nodes_and_pools,
              "daemon.json": daemon}


def main():
    check = "--check" in sys.argv[1:]
    stale = []
    for name, build in DASHBOARDS.items():
        text = json.dumps(build(), indent=2) + "\n"
        path = OUT_DIR / name
        if check:
            if not path.exists() or path.read_text() != text:
                stale.append(name)
        else:
            path.write_text(text)
    if stale:
        print("dashboards out of date (run python3 dashboards/generate.py): " + ", ".join(stale), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

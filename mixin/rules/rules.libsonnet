// Recording rules: the scheduling-SLO error ratios the burn-rate alerts read, the GPU and
// allocation aggregates the dashboards read (inputs: kube-scheduler and kube-state-metrics
// series), and each pod's usage every 5 minutes, which the daemon reads with
// sources.prometheus.usage_from_recording_rules (inputs: cAdvisor and dcgm-exporter).
{
  local c = $._config,
  local fmt(s) = s % (c { slo: c.schedulingLatencySLO.latencyThreshold }),

  // One error ratio per window that a burn-rate alert uses (each window once).
  local sloWindows = std.set(std.flattenArrays([[b.short, b.long] for b in c.schedulingLatencySLO.burnRates]),
                             function(w) std.parseInt(std.substr(w, 0, std.length(w) - 1)) *
                                         { m: 60, h: 3600, d: 86400 }[std.substr(w, std.length(w) - 1, 1)]),

  prometheusRules+:: {
    groups+: [
      {
        // Share of pods scheduled slower than the SLO threshold, on
        // scheduler_pod_scheduling_sli_duration_seconds (older clusters: use
        // scheduler_pod_scheduling_duration_seconds, which has the same buckets).
        name: 'dagadvisor-scheduling-slo.recording',
        rules: [
          {
            record: 'cluster:scheduler_pod_scheduling_sli:error_ratio_rate%s' % w,
            expr: |||
              1 - (
                sum by (%(clusterLabel)s) (rate(scheduler_pod_scheduling_sli_duration_seconds_bucket{le="%(slo)s"}[%(w)s]))
                /
                sum by (%(clusterLabel)s) (rate(scheduler_pod_scheduling_sli_duration_seconds_count[%(w)s]))
              )
            ||| % (c { slo: c.schedulingLatencySLO.latencyThreshold, w: w }),
          }
          for w in sloWindows
        ],
      },
      {
        // GPU accounting from kube-state-metrics, per cluster (alerts and dashboards).
        name: 'dagadvisor-gpu.recording',
        rules: [
          {
            record: 'cluster:kube_node_gpus_allocatable:sum',
            expr: fmt('sum by (%(clusterLabel)s) (kube_node_status_allocatable{resource="%(gpuResource)s"})'),
          },
          {
            // GPUs held by pods bound to a node that have not finished (Pending while starting, or Running).
            record: 'cluster:kube_pod_gpus_requested_bound:sum',
            expr: fmt(|||
              sum by (%(clusterLabel)s) (
                kube_pod_container_resource_requests{resource="%(gpuResource)s", node!=""}
                * on (%(clusterLabel)s, namespace, pod) group_left ()
                  max by (%(clusterLabel)s, namespace, pod) (kube_pod_status_phase{phase=~"Pending|Running"} == 1)
              )
              or
              0 * cluster:kube_node_gpus_allocatable:sum
            |||),
          },
          {
            // GPUs asked for by pods the scheduler already failed to place.
            record: 'cluster:kube_pod_gpus_requested_unschedulable:sum',
            expr: fmt(|||
              sum by (%(clusterLabel)s) (
                kube_pod_container_resource_requests{resource="%(gpuResource)s"}
                * on (%(clusterLabel)s, namespace, pod) group_left ()
                  max by (%(clusterLabel)s, namespace, pod) (kube_pod_status_unschedulable == 1)
              )
            |||),
          },
          {
            record: 'cluster:kube_node_gpus_free:sum',
            expr: 'cluster:kube_node_gpus_allocatable:sum - cluster:kube_pod_gpus_requested_bound:sum',
          },
        ],
      },
      {
        // Each pod's usage at the resolution right-sizing reads it (the daemon's pod_usage_*
        // queries): the interval must stay 5m, since the daemon counts a pod's CPU samples as
        // 5-minute points. Reading a day of these is a range function over one series a pod;
        // without them every read re-evaluates every container's rate at 288 steps. Names:
        // the daemon's sources.prometheus.metrics.recorded_*.
        name: 'dagadvisor-usage.recording',
        interval: '5m',
        rules: [
          {
            record: 'namespace_pod:dagadvisor_container_cpu_usage_seconds:rate5m',
            expr: fmt(|||
              sum by (%(clusterLabel)s, namespace, pod) (
                max by (%(clusterLabel)s, namespace, pod, container) (
                  rate(container_cpu_usage_seconds_total{container!="", container!="POD"}[5m])
                )
              )
            |||),
          },
          {
            record: 'namespace_pod:dagadvisor_container_memory_working_set_bytes:sum',
            expr: fmt(|||
              sum by (%(clusterLabel)s, namespace, pod) (
                max by (%(clusterLabel)s, namespace, pod, container) (
                  container_memory_working_set_bytes{container!="", container!="POD"}
                )
              )
            |||),
          },
          {
            // dcgm-exporter names the pod `pod`, `exported_pod` or `pod_name` by version and
            // honor_labels; all three are folded into `pod`, as the daemon's own query does.
            record: 'namespace_pod:dagadvisor_gpu_utilization:avg',
            expr: fmt(|||
              avg by (%(clusterLabel)s, namespace, pod) (
                label_replace(
                  label_replace(
                    label_replace(DCGM_FI_DEV_GPU_UTIL, "pod", "$1", "exported_pod", "(.+)"),
                    "pod", "$1", "pod_name", "(.+)"
                  ),
                  "namespace", "$1", "exported_namespace", "(.+)"
                )
              )
            |||),
          },
        ],
      },
      {
        // Allocation per node, resource and pool (dashboard "Nodes and pools").
        name: 'dagadvisor-nodes.recording',
        rules: [
          {
            record: 'node_resource:kube_pod_requests_bound:sum',
            expr: fmt(|||
              sum by (%(clusterLabel)s, node, resource) (
                kube_pod_container_resource_requests{node!=""}
                * on (%(clusterLabel)s, namespace, pod) group_left ()
                  max by (%(clusterLabel)s, namespace, pod) (kube_pod_status_phase{phase=~"Pending|Running"} == 1)
              )
            |||),
          },
          {
            record: 'node_resource:kube_node_allocatable:sum',
            expr: fmt('sum by (%(clusterLabel)s, node, resource) (kube_node_status_allocatable)'),
          },
          {
            // Nodes without requests count as 0, not as missing.
            record: 'node_resource:allocation:ratio',
            expr: |||
              (node_resource:kube_pod_requests_bound:sum or 0 * node_resource:kube_node_allocatable:sum)
              / node_resource:kube_node_allocatable:sum
            |||,
          },
          {
            record: 'pool_resource:allocation:ratio',
            expr: fmt(|||
              sum by (%(clusterLabel)s, label_node_type, resource) (
                (node_resource:kube_pod_requests_bound:sum or 0 * node_resource:kube_node_allocatable:sum)
                * on (%(clusterLabel)s, node) group_left (label_node_type) max by (%(clusterLabel)s, node, label_node_type) (kube_node_labels)
              )
              /
              sum by (%(clusterLabel)s, label_node_type, resource) (
                node_resource:kube_node_allocatable:sum
                * on (%(clusterLabel)s, node) group_left (label_node_type) max by (%(clusterLabel)s, node, label_node_type) (kube_node_labels)
              )
            |||),
          },
          {
            // Bound, unfinished pods that request no GPU, on nodes that have GPUs.
            record: 'node:kube_pod_non_gpu_on_gpu_node:count',
            expr: fmt(|||
              count by (%(clusterLabel)s, node) (
                (
                  max by (%(clusterLabel)s, namespace, pod, node) (kube_pod_info{node!=""})
                  * on (%(clusterLabel)s, namespace, pod) group_left ()
                    max by (%(clusterLabel)s, namespace, pod) (kube_pod_status_phase{phase=~"Pending|Running"} == 1)
                )
                unless on (%(clusterLabel)s, namespace, pod)
                  kube_pod_container_resource_requests{resource="%(gpuResource)s"} > 0
              )
              and on (%(clusterLabel)s, node)
              max by (%(clusterLabel)s, node) (kube_node_status_allocatable{resource="%(gpuResource)s"}) > 0
            |||),
          },
        ],
      },
    ],
  },
}

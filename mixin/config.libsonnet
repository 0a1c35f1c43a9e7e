// The knobs of the dagadvisor mixin. Override them the kubernetes-mixin way:
//   (import 'mixin/mixin.libsonnet') + { _config+:: { clusterLabel: 'k8s_cluster' } }
{
  _config+:: {
    // Selects Prometheus' scrape of the daemon (the ServiceMonitor's job is the Service's name).
    dagadvisorSelector: 'job="dagadvisor"',
    // The label that tells clusters apart when one backend holds several. Every aggregation
    // keeps it, so each cluster is alerted on its own; dagadvisor's own series always carry it.
    clusterLabel: 'cluster',
    // The extended resource name of a GPU as kube-state-metrics writes it.
    gpuResource: 'nvidia_com_gpu',

    // Scheduling-latency SLO: at most errorBudgetPercent % of pods take longer than
    // latencyThreshold seconds from creation to binding. The threshold must be a bucket
    // boundary (`le`) of scheduler_pod_scheduling_sli_duration_seconds (Kubernetes 1.27+).
    schedulingLatencySLO: {
      latencyThreshold: '5.12',
      errorBudgetPercent: 1,
      // Multi-window, multi-burn-rate alerts (SRE workbook): burn rate × budget over both windows.
      burnRates: [
        { factor: 14.4, long: '1h', short: '5m', 'for': '2m', severity: 'critical', longText: 'hour', summary: 'burns fast' },
        { factor: 6, long: '6h', short: '30m', 'for': '15m', severity: 'warning', longText: '6 hours', summary: 'burns' },
      ],
    },

    // Alert thresholds and durations.
    gpuNodeHoardingFor: '15m',
    strandedGpusFor: '30m',
    // A run waits too long when more than this share of its makespan went on waiting...
    criticalPathWaitShare: 0.25,
    // ...and it is longer than this (short runs queue a few minutes normally).
    criticalPathMinMakespanSeconds: 1800,
    criticalPathRunWaitingFor: '10m',
    analysisStaleFor: '10m',
    sourceDownFor: '5m',
    absentFor: '5m',

    // Each alert's runbook: the anchor is the alert name in lower case.
    runbookURLPattern: 'https://github.com/dagadvisor/dagadvisor/blob/main/alerts/runbook.md#%s',

    // Grafana.
    grafanaDashboardTags: ['dagadvisor'],
    dashboardRefresh: '1m',
    dashboardTimeFrom: 'now-6h',
    // Default of the dashboards' `dagadvisor URL` variable: where users reach the daemon's page.
    daemonURL: 'http://dagadvisor.monitoring.svc:9731',
  },
}

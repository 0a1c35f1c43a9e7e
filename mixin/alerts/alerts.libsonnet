// dagadvisor's alerts. Every alert has a `severity` (critical, warning or info), a summary, a
// description and a runbook_url into alerts/runbook.md, whose section is the alert's name.
{
  local c = $._config,
  local slo = c.schedulingLatencySLO,
  local runbook(name) = c.runbookURLPattern % std.asciiLower(name),
  local alert(name, expr, forDuration, severity, summary, description) = {
    alert: name,
    expr: expr,
    'for': forDuration,
    labels: { severity: severity },
    annotations: { summary: summary, description: description, runbook_url: runbook(name) },
  },

  prometheusAlerts+:: {
    groups+: [
      {
        name: 'dagadvisor.alerts',
        rules: [
          // Multi-window burn rates as in the SRE workbook: with the defaults, 14.4x over 1 h
          // pages, 6x over 6 h warns.
          alert(
            'DagadvisorSchedulingLatencySLOBurn',
            |||
              cluster:scheduler_pod_scheduling_sli:error_ratio_rate%(long)s > (%(factor)s * %(budget)s)
              and
              cluster:scheduler_pod_scheduling_sli:error_ratio_rate%(short)s > (%(factor)s * %(budget)s)
            ||| % (b { budget: slo.errorBudgetPercent / 100 }),
            b['for'],
            b.severity,
            'Pods are scheduled too slowly; the scheduling-latency SLO budget %s.' % b.summary,
            ('{{ $value | humanizePercentage }} of the pods scheduled in the last %s took longer than %s s ' +
             '(SLO: at most %s%%) in cluster "{{ $labels.%s }}".') %
            [b.longText, slo.latencyThreshold, slo.errorBudgetPercent, c.clusterLabel],
          )
          for b in slo.burnRates
        ] + [
          // dagadvisor reports a node only while a GPU pod is pending that the node would take
          // if its non-GPU pods were elsewhere (detectors.gpu_node_hoarding.require_pending_gpu_pods).
          alert(
            'DagadvisorGpuNodeHoarding',
            |||
              max by (%(clusterLabel)s, node) (dagadvisor_gpu_node_hoarded) == 1
              and on (%(clusterLabel)s)
              max by (%(clusterLabel)s) (dagadvisor_pending_pods) > 0
            ||| % c,
            c.gpuNodeHoardingFor,
            'warning',
            'GPU node {{ $labels.node }} is held by pods that need no GPU while GPU pods pend.',
            ('Non-GPU pods request the CPU or memory of GPU node {{ $labels.node }} in cluster ' +
             '"{{ $labels.%s }}", so pending GPU pods cannot use its free GPUs. See ' +
             "dagadvisor's gpu-node-hoarding recommendation for the taint patch.") % c.clusterLabel,
          ),
          alert(
            'DagadvisorStrandedGpus',
            |||
              cluster:kube_node_gpus_free:sum > 0
              and on (%(clusterLabel)s)
              cluster:kube_pod_gpus_requested_unschedulable:sum > 0
            ||| % c,
            c.strandedGpusFor,
            'warning',
            'GPUs sit unallocated while GPU pods cannot be scheduled.',
            ('{{ $value }} GPU(s) are free in cluster "{{ $labels.%s }}" while pods asking for GPUs stay ' +
             'unschedulable: the free GPUs are on nodes that lack CPU, memory or a toleration for them.') %
            c.clusterLabel,
          ),
          // Efficiency = critical path / makespan: with the defaults, the run spent more than a
          // quarter of its time waiting (for the scheduler, for capacity) rather than on its
          // longest chain of work. Short runs are left out: some queueing is normal for them.
          alert(
            'DagadvisorCriticalPathRunWaiting',
            |||
              dagadvisor_dag_run_wait_share_ratio > %(criticalPathWaitShare)s
              and
              dagadvisor_dag_run_elapsed_seconds > %(criticalPathMinMakespanSeconds)s
            ||| % c,
            c.criticalPathRunWaitingFor,
            'warning',
            'Workflow run {{ $labels.dag }}/{{ $labels.run }} waits on scheduling.',
            ('The critical chain of run {{ $labels.run }} of {{ $labels.dag }} (namespace ' +
             '{{ $labels.namespace }}, cluster "{{ $labels.%s }}") spent ' +
             "{{ $value | humanizePercentage }} of the run's makespan waiting to be scheduled.") % c.clusterLabel,
          ),
          alert(
            'DagadvisorAnalysisStale',
            'max by (%(clusterLabel)s) (dagadvisor_analysis_stale) == 1' % c,
            c.analysisStaleFor,
            'warning',
            'dagadvisor serves a stale analysis.',
            ('The analysis of cluster "{{ $labels.%s }}" has not been refreshed successfully for more ' +
             'than server.stale_after; recommendations and metrics are out of date.') % c.clusterLabel,
          ),
          alert(
            'DagadvisorSourceDown',
            'max by (%(clusterLabel)s, source) (dagadvisor_source_up) == 0' % c,
            c.sourceDownFor,
            'warning',
            'dagadvisor cannot read its data source {{ $labels.source }}.',
            ('The last analysis cycles for cluster "{{ $labels.%s }}" failed to read ' +
             '{{ $labels.source }}; /readyz of the daemon says why.') % c.clusterLabel,
          ),
          alert(
            'DagadvisorAbsent',
            'absent(up{%(dagadvisorSelector)s} == 1)' % c,
            c.absentFor,
            'critical',
            'No dagadvisor instance is up.',
            ('Prometheus has no successful scrape of %s: the daemon is down, or its scrape ' +
             'configuration (job name, ServiceMonitor) changed.') %
            (if std.startsWith(c.dagadvisorSelector, 'job=') then 'job ' + std.substr(c.dagadvisorSelector, 4, 1000)
             else '{%s}' % c.dagadvisorSelector),
          ),
        ],
      },
    ],
  },
}

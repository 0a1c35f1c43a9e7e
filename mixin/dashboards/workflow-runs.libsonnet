// Workflow runs: per-run makespan, critical path and waiting share of the top runs.
local g = import '../lib/grafana.libsonnet';
{
  local c = $._config,
  local C = '%s=~"$cluster"' % c.clusterLabel,
  local sel = '%s, dag=~"$dag"' % C,
  local t = g.target,
  local p = g.panel,

  grafanaDashboards+:: {
    'workflow-runs.json': g.dashboard(
      c,
      'dagadvisor-workflow-runs',
      'dagadvisor / Workflow runs',
      'Per-run makespan, critical path and waiting share of the top workflow runs.',
      [
        p('timeseries',
          'Elapsed time vs critical path vs HEFT what-if',
          'Elapsed time (first task created to last finished: the makespan; to now while the run is unfinished), ' +
          "the critical path's length, and the makespan of a HEFT re-schedule on the same nodes.",
          [
            t('dagadvisor_dag_run_elapsed_seconds{%s}' % sel, 'elapsed {{dag}}/{{run}}'),
            t('dagadvisor_dag_run_critical_path_seconds{%s}' % sel, 'critical path {{dag}}/{{run}}'),
            t('dagadvisor_dag_run_whatif_makespan_seconds{%s}' % sel, 'HEFT what-if {{dag}}/{{run}}'),
          ],
          's'),
        p('timeseries',
          'Wait share',
          "Share of a run's makespan its critical chain spent waiting for a node.",
          [t('dagadvisor_dag_run_wait_share_ratio{%s}' % sel, '{{dag}}/{{run}}')],
          'percentunit'),
        p('table',
          'Slowest runs',
          'The ten runs with the longest makespan, with their critical path and efficiency. The critical-path ' +
          "tasks of a run are on the daemon's page (link above).",
          [
            t('topk(10, dagadvisor_dag_run_makespan_seconds{%s})' % sel, instant=true),
            t('dagadvisor_dag_run_critical_path_seconds{%s}' % sel, instant=true),
            t('dagadvisor_dag_run_efficiency_ratio{%s}' % sel, instant=true),
          ],
          's',
          w=24),
        p('timeseries',
          'Pods waiting for the scheduler',
          'Pods in phase Pending, and those the scheduler already failed to place (kube-state-metrics).',
          [
            t('sum(kube_pod_status_phase{%s, phase="Pending"})' % C, 'pending'),
            t('sum(kube_pod_status_unschedulable{%s})' % C, 'unschedulable'),
          ],
          'none'),
        g.textPanel('Critical path, Gantt chart, HEFT what-if',
                    "Each run's tasks on the critical path, its Gantt chart per node and the HEFT what-if " +
                    'schedule are on the daemon: [${daemon_url}/](${daemon_url}/) and ' +
                    '`${daemon_url}/api/v1/dags/{run}?format=svg`.',
                    w=12,
                    h=8),
      ],
      extraVariables=[
        g.queryVariable('dag', 'DAG', 'label_values(dagadvisor_dag_run_elapsed_seconds{%s}, dag)' % C),
      ],
    ),
  },
}

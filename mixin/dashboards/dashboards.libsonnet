// One file per dashboard; each adds itself to grafanaDashboards (file name → dashboard JSON).
(import 'overview.libsonnet') +
(import 'workflow-runs.libsonnet') +
(import 'nodes-and-pools.libsonnet') +
(import 'daemon.libsonnet')

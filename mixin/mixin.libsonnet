// The dagadvisor monitoring mixin: prometheusRules (recording rules), prometheusAlerts and
// grafanaDashboards, configured by _config (config.libsonnet). Render with scripts/render-mixin.sh.
(import 'config.libsonnet') +
(import 'rules/rules.libsonnet') +
(import 'alerts/alerts.libsonnet') +
(import 'dashboards/dashboards.libsonnet')

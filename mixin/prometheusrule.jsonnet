// config/kubernetes/base/prometheusrule.yaml: the same groups as alerts/dagadvisor.rules.yml, as a
// Prometheus Operator PrometheusRule in the kustomize base.
local mixin = import 'mixin.libsonnet';
|||
  # The recording rules and alerts of alerts/dagadvisor.rules.yml for the Prometheus Operator.
  # RENDERED from mixin/ by scripts/render-mixin.sh: edit the mixin, not this file. The labels are
  # the ones kube-prometheus' Prometheus selects rules by; adjust them to your ruleSelector.
||| + std.manifestYamlDoc({
  apiVersion: 'monitoring.coreos.com/v1',
  kind: 'PrometheusRule',
  metadata: {
    name: 'dagadvisor-rules',
    namespace: 'monitoring',
    labels: {
      'app.kubernetes.io/name': 'dagadvisor',
      'app.kubernetes.io/component': 'rules',
      prometheus: 'k8s',
      role: 'alert-rules',
    },
  },
  spec: { groups: mixin.prometheusRules.groups + mixin.prometheusAlerts.groups },
}, indent_array_in_object=true, quote_keys=false) + '\n'

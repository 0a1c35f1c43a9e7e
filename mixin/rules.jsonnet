// alerts/dagadvisor.rules.yml: the recording rules, then the alerts, as one Prometheus rule file.
local mixin = import 'mixin.libsonnet';
local header = importstr 'rules-header.txt';
header + std.manifestYamlDoc(
  { groups: mixin.prometheusRules.groups + mixin.prometheusAlerts.groups },
  indent_array_in_object=true,
  quote_keys=false,
) + '\n'

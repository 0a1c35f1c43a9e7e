#!/usr/bin/env bash
# The mixin's _config reaches every rule and dashboard: rendered with another cluster label, job
# selector, SLO threshold, burn rate and threshold, the output uses them everywhere (no default
# left behind) and still passes promtool. Args: REPO WORK_DIR
set -euo pipefail
REPO=$1 WORK=$2
command -v jsonnet >/dev/null || { echo "FAIL: jsonnet is not installed (scripts/setup.sh)" >&2; exit 1; }
mkdir -p "$WORK"
cat >"$WORK/override.jsonnet" <<'JSONNET'
local mixin = (import 'mixin.libsonnet') + {
  _config+:: {
    clusterLabel: 'k8s_cluster',
    dagadvisorSelector: 'job="advisor"',
    schedulingLatencySLO+: { latencyThreshold: '2.56' },
    criticalPathWaitShare: 0.4,
    gpuResource: 'amd_com_gpu',
  },
};
{
  'rules.yml': std.manifestYamlDoc({ groups: mixin.prometheusRules.groups + mixin.prometheusAlerts.groups }),
  'dashboards.json': std.manifestJson(mixin.grafanaDashboards),
}
JSONNET
jsonnet -J "$REPO/mixin" -S -m "$WORK" "$WORK/override.jsonnet" >/dev/null
promtool check rules "$WORK/rules.yml"
python3 - "$WORK" <<'PY'
import json, re, sys, yaml
work = sys.argv[1]
rules = yaml.safe_load(open(f"{work}/rules.yml"))["groups"]
boards = json.load(open(f"{work}/dashboards.json"))
texts = [json.dumps(r) for g in rules for r in g["rules"]] + [json.dumps(b) for b in boards.values()]
blob = "\n".join(texts)
problems = []
# "cluster" as a label (not the cluster: prefix of rule names, not prose like 'in cluster "').
for m in re.finditer(r'(?<![\w:$])cluster(?![\w:])(?! \\")', blob):
    ctx = blob[max(0, m.start() - 30): m.end() + 10]
    if re.search(r'by \(|on \(|\$labels\.|\{\{|cluster=~|, cluster\)', ctx):
        problems.append("default cluster label left: ..." + ctx + "...")
for needle, why in [('le=\\"5.12\\"', "SLO threshold"), ('job=\\"dagadvisor\\"', "job selector"),
                    ("> 0.25", "wait-share threshold"), ("nvidia_com_gpu", "GPU resource")]:
    if needle in blob:
        problems.append(f"default {why} left: {needle}")
for needle in ('le=\\"2.56\\"', 'job=\\"advisor\\"', "> 0.4", "k8s_cluster=~", "by (k8s_cluster)",
               "$labels.k8s_cluster", "amd_com_gpu", "slower than 2.56 s"):
    if needle not in blob:
        problems.append(f"override not applied: {needle}")
for p in problems:
    print("FAIL: " + p, file=sys.stderr)
print(f"mixin config: {len(problems)} problem(s)")
sys.exit(1 if problems else 0)
PY

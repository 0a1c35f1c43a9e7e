#!/usr/bin/env bash
# Every scenario of SCENARIO_DIR but scale.yaml, one after the other: simulator → OpenMetrics →
# promtool → a real Prometheus → `dagadvisor analyze`. Each scenario names the finding kinds it
# plants in a one-line `expected_findings: [kind, …]`, visible at the ground truth's
# suggested_analysis_time (the scenario's own `analysis_at` when it has one).
# Fails when an expected kind is missing, when a planted hoarded GPU node is not a
# gpu-node-hoarding target, when `healthy` reports anything, or when the pending-pod kinds
# contradict each other (check_one_diagnosis). Other extra kinds are printed
# as false positives, not failed. split-dependencies is checked run by run against the transfer
# time the simulator charged (split_truth). Ends with a precision/recall table per kind.
# Args: DAGADVISOR_BINARY SIMULATOR_BINARY SCENARIO_DIR
DAGADVISOR=$1
SIM=$2
SCENARIO_DIR=$3
source "$(dirname "$0")/prometheus_harness.sh"

TALLY="$WORK_DIR/tally"  # one line per (scenario, kind): kind planted(0|1) findings
: >"$TALLY"
FAILURES=()

# The value of a top-level `key: value` line of a scenario file ("" when absent).
scenario_field() { sed -n "s/^$1:[[:space:]]*//p" "$2" | head -n 1 | sed 's/[[:space:]]*#.*//'; }

# "[a, b]" → one kind per line, sorted.
flow_list() { tr -d '[] ' <<<"$1" | tr ',' '\n' | sed '/^$/d' | sort -u; }

check_hoarded_targets() {
  local name=$1 out=$2 node
  for node in $(jq -r '.hoarded_gpu_nodes[].node' "$out/ground_truth.json"); do
    jq -e --arg t "node/$node" \
      'any(.findings[]; .kind == "gpu-node-hoarding" and .target == $t)' "$out/report.json" \
      >/dev/null || FAILURES+=("$name: planted hoarded node $node not reported")
  done
}

# split-dependencies is judged run by run against the simulator's physics: a run is planted
# when the transfers the simulator charged to its tasks started by the analysis time add up to
# SPLIT_FLOOR seconds or more (the detector's default min_run_transfer). Prints "TP FP".
SPLIT_FLOOR=45
split_truth() {
  local out=$1 at=$2
  jq -r --argjson at "$at" --argjson floor "$SPLIT_FLOOR" '.runs[]
      | select(([.tasks[] | select(.started != null and .started <= $at)
                 | .transfer_seconds // 0] | add // 0) >= $floor)
      | "\(.namespace)/\(.run)"' "$out/ground_truth.json" | sort -u >"$out/split_truth"
  jq -r '.findings[] | select(.kind == "split-dependencies")
      | "\(.evidence.namespace)/\(.evidence.run)"' "$out/report.json" | sort >"$out/split_found"
  echo "$(comm -12 "$out/split_found" "$out/split_truth" | wc -l)" \
    "$(comm -23 "$out/split_found" "$out/split_truth" | wc -l)"
}

# The nodes view (and dagadvisor_node_stranded_share, rendered from the same rows) and the
# stranded-resources findings follow one rule: a node row names a stranded resource exactly when
# the node has a finding (the scenarios strand fewer nodes than the detector's bound of 100 node
# findings), and its share is the finding's largest stranded free share.
check_stranding_agrees() {
  local name=$1 out=$2 disagreements
  disagreements=$(jq -r '
    ([.findings[] | select(.kind == "stranded-resources" and .evidence.scope == "node")
      | {key: .evidence.node, value: .evidence}] | from_entries) as $found
    | .nodes[] | . as $row | $found[$row.name] as $e
    | if $e == null then
        (if $row.stranded_resource != "" then "\($row.name): row says \($row.stranded_resource) stranded, no finding" else empty end)
      else
        ([$e.stranded | keys[] | {free_cpu_millis: "cpu", free_memory_bytes: "memory", free_gpus: "gpu"}[.]]
          | map($e.free_share[.]) | max) as $largest
        | if $row.stranded_resource == "" or (($row.stranded_share - $largest) | fabs) > 1e-9 then
            "\($row.name): row \($row.stranded_resource) \($row.stranded_share), finding \($largest)"
          else empty end
      end' "$out/report.json")
  if [ -n "$disagreements" ]; then
    echo "$disagreements" | head -5 >&2
    FAILURES+=("$name: nodes view and stranded-resources findings disagree on $(wc -l <<<"$disagreements") node(s)")
  fi
}

# One diagnosis per pending pod (the rules are in one_diagnosis.jq, shared with the openb test).
check_one_diagnosis() {
  local name=$1 out=$2 problems
  problems=$(jq -r -f "$(dirname "$0")/one_diagnosis.jq" "$out/report.json")
  if [ -n "$problems" ]; then
    echo "$problems" | head -5 >&2
    FAILURES+=("$name: $(wc -l <<<"$problems") contradiction(s) in the pending-pod diagnosis")
  fi
}

check_healthy() {
  local out=$1 findings recommendations
  findings=$(jq '.findings | length' "$out/report.json")
  recommendations=$(jq '.recommendations | length' "$out/report.json")
  if [ "$findings" -ne 0 ] || [ "$recommendations" -ne 0 ]; then
    jq -r '.findings[] | "  \(.kind) \(.target): \(.summary)"' "$out/report.json" >&2
    FAILURES+=("healthy: $findings finding(s), $recommendations recommendation(s)")
  fi
}

sweep_one() {
  local scenario=$1 name out line expected at kind count
  name=$(basename "$scenario" .yaml)
  out="$WORK_DIR/$name"
  line=$(scenario_field expected_findings "$scenario")
  [ -n "$line" ] || fail "$name: no expected_findings line in $scenario"
  expected=$(flow_list "$line")
  "$SIM" generate --scenario "$scenario" --out "$out" >/dev/null || fail "$name: simulator failed"
  start_prometheus_with_openmetrics "$out/metrics.om"
  at=$(jq -r .suggested_analysis_time "$out/ground_truth.json")
  local rc=0
  "$DAGADVISOR" analyze --prometheus "$PROM_URL" --at "$at" --output json >"$out/report.json" \
    2>"$out/analyze.log" || rc=$?
  [ "$rc" -eq 0 ] || { cat "$out/analyze.log" >&2; fail "$name: analyze exited $rc"; }
  local split_tp split_fp
  read -r split_tp split_fp < <(split_truth "$out" "$at")
  if grep -qx split-dependencies <<<"$expected"; then
    [ -s "$out/split_truth" ] ||
      FAILURES+=("$name: expects split-dependencies, but no run paid ${SPLIT_FLOOR} s of transfer")
    [ "$split_tp" -gt 0 ] || FAILURES+=("$name: planted split-dependencies not found")
  elif [ -s "$out/split_truth" ]; then
    echo "  note: $name: $(wc -l <"$out/split_truth") run(s) paid ${SPLIT_FLOOR} s of transfer" \
      "or more, but expected_findings does not list split-dependencies"
  fi
  [ -s "$out/split_truth" ] && echo "split-dependencies 1 $split_tp" >>"$TALLY"
  [ "$split_fp" -eq 0 ] || echo "  extra: $name: $split_fp split-dependencies finding(s) on runs" \
    "that paid under ${SPLIT_FLOOR} s of transfer"
  echo "split-dependencies 0 $split_fp" >>"$TALLY"
  for kind in $expected; do
    [ "$kind" = split-dependencies ] && continue
    count=$(jq --arg k "$kind" '[.findings[] | select(.kind == $k)] | length' "$out/report.json")
    echo "$kind 1 $count" >>"$TALLY"
    [ "$count" -gt 0 ] || FAILURES+=("$name: planted $kind not found")
  done
  while read -r count kind; do
    grep -qx "$kind" <<<"$expected" && continue
    [ "$kind" = split-dependencies ] && continue
    echo "$kind 0 $count" >>"$TALLY"
    echo "  extra: $name: $count $kind finding(s)"
  done < <(jq -r '.findings[].kind' "$out/report.json" | sort | uniq -c)
  grep -qx gpu-node-hoarding <<<"$expected" && check_hoarded_targets "$name" "$out"
  [ "$name" = healthy ] && check_healthy "$out"
  check_stranding_agrees "$name" "$out"
  check_one_diagnosis "$name" "$out"
  echo "done: $name at $at: expected [$(paste -sd ' ' <<<"$expected")]," \
    "found [$(jq -r '[.findings[].kind] | unique | join(" ")' "$out/report.json")]"
  kill "$PROM_PID"
  wait "$PROM_PID" 2>/dev/null || true
  PROM_PID=""
  rm -rf "$WORK_DIR/data" "$out/metrics.om"
}

# Precision over findings (those of a kind the scenario plants / all of that kind); recall over
# scenarios (those where a planted kind was found / those that plant it).
print_table() {
  awk '
    { k[$1] = 1
      if ($2 == 1) { planted[$1]++; if ($3 > 0) hit[$1]++; tp[$1] += $3 } else { fp[$1] += $3 } }
    END {
      printf "%-26s %6s %6s %10s %8s %6s %8s\n", "kind", "TP", "FP", "precision", "planted", "found", "recall"
      for (kind in k) {
        prec = (tp[kind] + fp[kind]) > 0 ? sprintf("%.2f", tp[kind] / (tp[kind] + fp[kind])) : "-"
        rec = planted[kind] > 0 ? sprintf("%.2f", hit[kind] / planted[kind]) : "-"
        printf "%-26s %6d %6d %10s %8d %6d %8s\n", kind, tp[kind], fp[kind], prec, planted[kind], hit[kind], rec
      }
    }' "$TALLY" | { read -r header; echo "$header"; sort; }
}

count=0
for scenario in "$SCENARIO_DIR"/*.yaml; do
  [ "$(basename "$scenario")" = scale.yaml ] && continue
  sweep_one "$scenario"
  count=$((count + 1))
done
[ "$count" -gt 0 ] || fail "no scenario in $SCENARIO_DIR"
echo
print_table
if [ "${#FAILURES[@]}" -gt 0 ]; then
  printf 'FAIL: %s\n' "${FAILURES[@]}" >&2
  exit 1
fi
echo "ok: $count scenarios, every planted kind found, healthy silent"

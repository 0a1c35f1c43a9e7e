#!/usr/bin/env bash
# `dagadvisor whatif --apply` on the bundled scenario: the applied set is what the analysis
# replays but the advice its own prediction shows to cost (left out unless named), with its
# calibration; ids it cannot apply are refused with exit 2 and a reason.
set -euo pipefail
BIN=$1
SNAPSHOT=$2
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

"$BIN" analyze --snapshot "$SNAPSHOT" --output json > "$WORK/report.json"
"$BIN" whatif --snapshot "$SNAPSHOT" --apply all --output json > "$WORK/all.json"

replayable=$(jq -r '[.recommendations[] | select(.predicted.replayed) | .id] | sort | join(",")' "$WORK/report.json")
applied=$(jq -r '.together.recommendations | sort | join(",")' "$WORK/all.json")
[ -n "$applied" ] || { echo "FAIL: --apply all applied nothing"; exit 1; }
# `all` is every replayable one but those whose own prediction is a cost (left_out).
left_out=$(jq -r '.together.left_out | sort | join(",")' "$WORK/all.json")
either=$(jq -r '.together.recommendations + .together.left_out | sort | join(",")' "$WORK/all.json")
[ "$either" = "$replayable" ] || { echo "FAIL: applied $applied and left out $left_out, replayable $replayable"; exit 1; }
jq -e '(.together.recommendations - .together.left_out) == .together.recommendations' "$WORK/all.json" \
  > /dev/null || { echo "FAIL: $left_out both applied and left out"; exit 1; }
for id in $(jq -r '.together.left_out[]' "$WORK/all.json"); do  # named, it is applied
  jq -e --arg id "$id" '.recommendations[] | select(.id == $id) | .predicted.makespan_seconds.change_range[0] > 0' \
    "$WORK/report.json" > /dev/null || { echo "FAIL: $id left out without being slower in every replay"; exit 1; }
  "$BIN" whatif --snapshot "$SNAPSHOT" --apply "$id" --output json |
    jq -e --arg id "$id" '.together.recommendations == [$id] and .together.left_out == []' > /dev/null ||
    { echo "FAIL: $id named but not applied"; exit 1; }
done
jq -e '.together.predicted.replayed and .calibration.finished_runs > 0 and .calibration.median_error <= 0.10' \
  "$WORK/all.json" > /dev/null || { echo "FAIL: no calibrated joint prediction"; exit 1; }
# With every run listed, the runs are exactly the affected ones.
jq -e '.together.predicted.affected_runs == (.together.predicted.runs | length)' "$WORK/all.json" > /dev/null \
  || { echo "FAIL: whatif lists a subset of the affected runs"; exit 1; }

one=$(jq -r '[.recommendations[] | select(.predicted.replayed) | .id][0]' "$WORK/report.json")
"$BIN" whatif --snapshot "$SNAPSHOT" --apply "$one" --output json > "$WORK/one.json"
# One recommendation alone predicts what the report says it predicts.
jq -e --slurpfile r "$WORK/report.json" --arg id "$one" \
  '.together.recommendations == [$id] and
   (.together.predicted.gpu_pod_pending_seconds.change ==
    ($r[0].recommendations[] | select(.id == $id) | .predicted.gpu_pod_pending_seconds.change))' \
  "$WORK/one.json" > /dev/null || { echo "FAIL: --apply $one differs from its predicted"; exit 1; }

"$BIN" whatif --snapshot "$SNAPSHOT" --apply all > "$WORK/table.txt"
grep -q "^CLUSTER" "$WORK/table.txt" && grep -q "applied: $one" "$WORK/table.txt" \
  || { echo "FAIL: table output"; cat "$WORK/table.txt"; exit 1; }
# The nightly runs still ran at the snapshot: marked, and the mark explained.
grep -q "nightly_training/run-20261128-0000-0 \*" "$WORK/table.txt" &&
  grep -q "^  \* running at the window's end" "$WORK/table.txt" &&
  jq -e '[.together.predicted.runs[] | select(.run | test("nightly_training/")) | .finished_in_window] == [false]' \
    "$WORK/all.json" > /dev/null || { echo "FAIL: the running nightly run is not marked"; exit 1; }

expect_refusal() {  # expect_refusal IDS TEXT
  set +e
  "$BIN" whatif --snapshot "$SNAPSHOT" --apply "$1" > /dev/null 2> "$WORK/err.txt"
  local rc=$?
  set -e
  [ "$rc" = 2 ] || { echo "FAIL: --apply $1 exited $rc, not 2"; exit 1; }
  grep -q "$2" "$WORK/err.txt" || { echo "FAIL: --apply $1 said: $(cat "$WORK/err.txt")"; exit 1; }
}
expect_refusal "no-such-id-1" "no recommendation has the id 'no-such-id-1'"
words=$(jq -r '[.recommendations[] | select(.predicted.replayed | not) | .id][0]' "$WORK/report.json")
expect_refusal "$one,$words" "$words has no change the replay models"
echo "whatif --apply: $applied applied; refusals named"

#!/usr/bin/env bash
# Memory exhaustion is an error in every command, never an abort (issue 55): under `ulimit -v`
# a large valid answer (bad_backend.py many-series, 600,000 series, with the series caps of a
# query and of a cycle and the response caps raised past it) runs out of memory wherever it
# happens to be received, decoded or modelled: in curl's write callback on a fetch thread, in
# simdjson, in the model builder.
# At every limit below, `analyze` and `snapshot record` must exit 1 with an error naming the
# exhaustion ("out of memory"), never 134 (std::terminate) nor "malformed JSON". Before: 134
# from 700 MB up, and simdjson's allocation failure reported as malformed JSON.
# Labelled slow: ASan's reserved shadow cannot run under `ulimit -v`.
# Args: DAGADVISOR_BINARY BAD_BACKEND_PY
DAGADVISOR=$1
BACKEND=$2
source "$(dirname "$0")/../integration/prometheus_harness.sh"
source "$(dirname "$0")/bad_backend.sh"
trap stop_all EXIT

export BAD_BACKEND_SERIES=600000
start_backend many-series
CONFIG="$WORK_DIR/dagadvisor.yaml"
cat >"$CONFIG" <<YAML
sources:
  prometheus:
    max_series_per_query: 5000000
    max_series_per_cycle: 100000000
    max_response_mib: 1024
    response_budget_mib: 2048
    timeout: 120s
YAML

# Address-space limits in KiB, from where simdjson's buffers fail to where the model does.
for limit in 600000 800000 1100000 1600000; do
  for command in analyze "snapshot record"; do
    out="$WORK_DIR/${command// /-}-$limit.out"
    extra=()
    [ "$command" = analyze ] || extra=(--out "$WORK_DIR/snap-$limit")
    # shellcheck disable=SC2086
    (set +e; ulimit -v "$limit"; "$DAGADVISOR" $command --config "$CONFIG" --prometheus "$BACKEND_URL" \
      "${extra[@]}" >"$out" 2>&1; echo "rc=$?" >>"$out")
    rc=$(sed -n 's/^rc=//p' "$out")
    [ "$rc" = 1 ] || fail "$command under ulimit -v $limit: exit $rc, expected 1: $(tail -3 "$out")"
    grep -q 'out of memory' "$out" || fail "$command under ulimit -v $limit: no 'out of memory' in: $(tail -3 "$out")"
    if grep -q 'malformed JSON' "$out"; then fail "$command under ulimit -v $limit: exhaustion reported as malformed JSON"; fi
    echo "ok: $command, ulimit -v $limit: exit 1: $(grep -v 'level=' "$out" | grep -v '^rc=' | tail -1 | cut -c1-160)"
  done
done

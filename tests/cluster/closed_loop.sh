# Sourced by the closed-loop tests, after cluster_harness.sh: the prediction taken from the
# daemon once a play has ended, the runs played again after the advice, and the judgement of the
# predicted change against what the real scheduler realised (tests/cluster/realised.py).

# Plays the runs (the play NAME) while keeping the daemon's latest recommendation of KIND that
# carries a replayed prediction, with the analysis it came from, in $WORK_DIR/prediction.json:
# a kind that speaks of pods pending now is gone once the play has ended, and its last prediction
# replays the window up to its last moment (the analysis' data_time).
play_runs_taking_prediction() {  # play_runs_taking_prediction NAME KIND
  play_runs "$1" &
  local player=$! taken=0
  while kill -0 "$player" 2>/dev/null; do
    if curl -fsS "$DAGADVISOR_URL/api/v1/recommendations" >"$WORK_DIR/answer.json" 2>/dev/null &&
      jq -e --arg kind "$2" 'any(.recommendations[]; .kind == $kind and .predicted.replayed == true)' \
        "$WORK_DIR/answer.json" >/dev/null; then
      mv "$WORK_DIR/answer.json" "$WORK_DIR/prediction.json"
      taken=$((taken + 1))
    fi
    sleep 2
  done
  wait "$player" || exit 1
  [ "$taken" -gt 0 ] || fail "dagadvisor never recommended $2 with a replayed prediction during the play"
  ok "$taken analyses recommended $2 with a replayed prediction; the last one up to $(jq -r .data_time "$WORK_DIR/prediction.json")"
}

# The same runs, reset and played again COUNT times on the changed cluster.
play_after() {  # play_after COUNT
  local i
  for ((i = 1; i <= $1; i++)); do
    reset_runs
    play_runs "after-$i"
  done
}

# The predicted change of FIGURE within TOLERANCE (a share) of the realised mean change, and of
# the same sign; prints the table of every figure.
judge_headline() {  # judge_headline FIGURE TOLERANCE
  local afters=() file
  for file in "$WORK_DIR"/after-*.json; do afters+=(--after "$file"); done
  python3 "$ROOT/tests/cluster/realised.py" --plan "$WORK_DIR/plan.json" \
    --before "$WORK_DIR/before-1.json" "${afters[@]}" --prediction "$WORK_DIR/prediction.json" \
    --kind "$KIND" --out "$WORK_DIR/realised.json" ||
    fail "the realised figures could not be read"
  jq -e --arg figure "$1" --argjson tolerance "$2" '
    .predicted[$figure].change as $predicted | .realised[$figure].change_mean as $realised
    | $realised != 0 and ($predicted * $realised) > 0
      and (($predicted - $realised) | fabs) <= $tolerance * ($realised | fabs)' \
    "$WORK_DIR/realised.json" >/dev/null ||
    fail "$1: predicted $(jq ".predicted.$1.change" "$WORK_DIR/realised.json"), realised $(jq ".realised.$1.change_mean" "$WORK_DIR/realised.json") (mean): not within $2 of it"
  ok "$1: the predicted change is within $2 of the realised mean"
}

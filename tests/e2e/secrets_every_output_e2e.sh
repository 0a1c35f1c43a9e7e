#!/usr/bin/env bash
# One rule for secrets (issue 55): no credential the client sends, in any encoding, reaches any
# output, whatever a backend echoes. A proxy in front of a real Prometheus (bad_backend.py
# echo-credentials) echoes the request's credentials in every form (the Authorization value, the
# bare token or base64(user:password), the decoded user:password, each raw and URL-encoded) in
# every channel: warnings of a good answer, a 401 body, an HTML 200, a Content-Type, a
# Prometheus error, the label values of a good answer. For a bearer token and for basic auth,
# every output is searched for every form: analyze -o json (stdout and stderr), the daemon's
# log, /readyz, every API view, the page, /metrics, check-config, and the error for a URL
# carrying user:password.
# Args: DAGADVISOR_BINARY BAD_BACKEND_PY FIXTURE_OM
DAGADVISOR=$1
BACKEND=$2
FIXTURE=$3
source "$(dirname "$0")/../integration/prometheus_harness.sh"
source "$(dirname "$0")/bad_backend.sh"
trap stop_all EXIT

AT=$UPSTREAM_AT
CHANNELS="labels warnings status-401 html-200 content-type api-error"
# Characters that URL-encoding changes, so that the encoded forms differ from the raw ones.
TOKEN='tok/e2e+9c1f=44d2ab'
PASSWORD='pw/e2e+77aa=0b3c'
API_KEY='key-e2e-5be1c0ffee'

start_upstream "$FIXTURE"
export BAD_BACKEND_CHANNEL_FILE="$WORK_DIR/channel"
echo warnings >"$BAD_BACKEND_CHANNEL_FILE"
start_backend echo-credentials

url_encoded() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"; }
BASIC=$(printf 'bob:%s' "$PASSWORD" | base64 -w0)
printf '%s\n' "$TOKEN" >"$WORK_DIR/token"
printf '%s\n' "$PASSWORD" >"$WORK_DIR/password"
write_config() {  # write_config FILE AUTH_LINES...
  local file=$1
  shift
  { printf 'sources:\n  prometheus:\n    headers:\n      X-Api-Key: %s\n' "$API_KEY"
    printf '    %s\n' "$@"
    printf 'analysis:\n  interval: 1s\n'; } >"$file"
}
write_config "$WORK_DIR/bearer.yaml" "bearer_token_file: $WORK_DIR/token"
write_config "$WORK_DIR/basic.yaml" "basic_auth:" "  username: bob" "  password_file: $WORK_DIR/password"

# The forms no output may contain, per kind of credential; the API key is in both configs.
forms_of() {  # forms_of KIND
  if [ "$1" = bearer ]; then
    printf '%s\n' "$TOKEN" "$(url_encoded "$TOKEN")" "$API_KEY"
  else
    printf '%s\n' "$PASSWORD" "$(url_encoded "$PASSWORD")" "${BASIC%%=*}" "$(url_encoded "$BASIC")" \
      "$API_KEY"
  fi
}

LEAKS=0
expect_clean() {  # expect_clean KIND FILE WHAT: FILE holds no form of KIND's credential
  local form count
  while IFS= read -r form; do
    count=$({ grep -oF -e "$form" "$2" || true; } | wc -l)
    if [ "$count" -gt 0 ]; then
      echo "LEAK: $3 ($1) repeats '$form' $count times: $(grep -F -e "$form" "$2" | head -1 | cut -c1-300)" >&2
      LEAKS=$((LEAKS + count))
    fi
  done < <(forms_of "$1")
}

cycles() { grep -cE 'analysis (failed|published)' "$WORK_DIR/$1.log" || true; }
wait_cycles() {  # wait_cycles KIND N: N more cycles ended, for at most 30 s
  local target=$(($(cycles "$1") + $2))
  for _ in $(seq 300); do [ "$(cycles "$1")" -ge "$target" ] && return 0; sleep 0.1; done
  fail "$1: no $2 more cycles in 30 s: $(tail -3 "$WORK_DIR/$1.log")"
}

for kind in bearer basic; do
  for channel in $CHANNELS; do
    echo "$channel" >"$BAD_BACKEND_CHANNEL_FILE"
    out="$WORK_DIR/analyze-$kind-$channel.out"
    set +e
    "$DAGADVISOR" analyze --config "$WORK_DIR/$kind.yaml" --prometheus "$BACKEND_URL" --at "$AT" \
      --output json >"$out" 2>&1
    rc=$?
    set -e
    expect_clean "$kind" "$out" "analyze -o json, echo in $channel"
    if [ "$channel" = warnings ] || [ "$channel" = labels ]; then
      [ "$rc" -eq 0 ] || { cat "$out" >&2; fail "analyze ($kind, $channel) exited $rc"; }
      grep -qF 'seen <redacted>' "$out" || fail "analyze ($kind): the echo in $channel is not shown, redacted"
    else
      [ "$rc" -eq 1 ] || { cat "$out" >&2; fail "analyze ($kind, $channel) exited $rc, expected 1"; }
    fi
  done
  if [ "$kind" = bearer ]; then sent="Bearer $TOKEN"; else sent="Basic $BASIC"; fi
  grep -qF "$sent" "$REQUESTS" || fail "the backend never got '$sent' (nothing to echo)"
  echo "ok: analyze ($kind): no form of the credential in stdout or stderr, echo in any channel"

  echo warnings >"$BAD_BACKEND_CHANNEL_FILE"
  PORT=$(free_port)
  "$DAGADVISOR" serve --config "$WORK_DIR/$kind.yaml" --prometheus "$BACKEND_URL" --at "$AT" \
    --listen "127.0.0.1:$PORT" >"$WORK_DIR/$kind.log" 2>&1 &
  DAEMON=$!
  wait_http_ok "http://127.0.0.1:$PORT/healthz" 30 || { cat "$WORK_DIR/$kind.log" >&2; fail "daemon not up"; }
  for channel in $CHANNELS; do
    echo "$channel" >"$BAD_BACKEND_CHANNEL_FILE"
    wait_cycles "$kind" 2  # the second one ran wholly on this channel
    for path in readyz api/v1/summary api/v1/findings api/v1/recommendations api/v1/dags \
      api/v1/nodes metrics ""; do
      curl -s "http://127.0.0.1:$PORT/$path" >"$WORK_DIR/$kind-$channel-${path//\//-}.out"
      expect_clean "$kind" "$WORK_DIR/$kind-$channel-${path//\//-}.out" "/$path, echo in $channel"
    done
  done
  grep -qF 'seen <redacted>' "$WORK_DIR/$kind-api-error-api-v1-summary.out" \
    || fail "serve ($kind): the summary envelope lost the echoed warnings"
  grep -qF 'seen <redacted>' "$WORK_DIR/$kind-labels-api-v1-dags.out" \
    || fail "serve ($kind): the runs do not show the echoed namespaces, redacted"
  expect_clean_sigterm "$DAEMON" "$WORK_DIR/$kind.log"
  DAEMON=""
  expect_clean "$kind" "$WORK_DIR/$kind.log" "the daemon's log"
  echo "ok: serve ($kind): no form of the credential in the log, /readyz, the API, the page, /metrics"

  "$DAGADVISOR" check-config --config "$WORK_DIR/$kind.yaml" >"$WORK_DIR/check-$kind.out" 2>&1 \
    || { cat "$WORK_DIR/check-$kind.out" >&2; fail "check-config ($kind) refused the config"; }
  grep -qF 'X-Api-Key: <redacted>' "$WORK_DIR/check-$kind.out" \
    || fail "check-config ($kind) does not show the credential header, redacted: $(grep -i x-api-key "$WORK_DIR/check-$kind.out")"
  expect_clean "$kind" "$WORK_DIR/check-$kind.out" "check-config"
done

set +e
"$DAGADVISOR" analyze --prometheus "http://bob:$PASSWORD@127.0.0.1:9" >"$WORK_DIR/url.out" 2>&1
rc=$?
set -e
[ "$rc" -eq 2 ] || { cat "$WORK_DIR/url.out" >&2; fail "a URL with user:password: exit $rc, expected 2"; }
grep -qF "sources.prometheus.url" "$WORK_DIR/url.out" || fail "the URL error names no field: $(cat "$WORK_DIR/url.out")"
expect_clean basic "$WORK_DIR/url.out" "the error for a URL with user:password"

[ "$LEAKS" -eq 0 ] || fail "$LEAKS occurrences of a credential in the outputs above"
echo "ok: no credential in any output: check-config shows 'X-Api-Key: <redacted>', a URL with user:password is refused without it"

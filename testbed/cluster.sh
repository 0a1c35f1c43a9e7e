#!/usr/bin/env bash
# A real Kubernetes control plane on loopback, built from Go modules (testbed/build.sh): etcd,
# kube-apiserver (TLS, RBAC, service-account tokens), kube-controller-manager, kube-scheduler
# (default profile), kwok (the kubelets of fake nodes: pods run for their annotated time and
# use what their annotations say), the Argo and Tekton CRDs (from their modules),
# kube-state-metrics with exactly config/kube-state-metrics/flags.txt, and Debian's Prometheus
# scraping kube-state-metrics, the scheduler and the kubelets' resource metrics. Tests, benchmarks and people use this one script.
#
#   testbed/cluster.sh start DIR   start everything, wait until all are ready, write DIR/env
#   testbed/cluster.sh stop DIR    stop everything started in DIR
#
# DIR/env exports KUBECONFIG (cluster admin), TESTBED_API_URL, TESTBED_CA, PROM_URL,
# TESTBED_SCHEDULER_URL, TESTBED_KSM_URL and TESTBED_KWOK_URL; DIR/logs holds each part's log.
# Settings (environment): TESTBED_BIN (the binaries, default build/testbed/bin),
# TESTBED_SCRAPE_INTERVAL (Prometheus' scrape interval, default 5s),
# TESTBED_SCHEDULER_CONFIG (a KubeSchedulerConfiguration to use instead of the default profile),
# TESTBED_KSM_REPLICAS (kube-state-metrics replicas, all scraped as one job as a Deployment's
# endpoints are; default 1).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BIN=${TESTBED_BIN:-$ROOT/build/testbed/bin}
# shellcheck source=../tests/support/ports.sh
source "$ROOT/tests/support/ports.sh"

usage() { echo "usage: testbed/cluster.sh start|stop DIR" >&2; exit 2; }
die() { echo "testbed: $*" >&2; exit 1; }

# Polls a URL until it answers 200, for at most LIMIT seconds; curl's other arguments follow.
wait_ok() {  # wait_ok NAME LIMIT URL [CURL_ARG...]
  local name=$1 limit=$2 url=$3 deadline
  shift 3
  deadline=$((SECONDS + limit))
  until curl -fsS -o /dev/null --max-time 2 "$@" "$url" 2>/dev/null; do
    if [ "$SECONDS" -ge "$deadline" ]; then
      tail -n 30 "$DIR/logs/$name.log" >&2 || true
      die "$name not ready at $url after ${limit}s (log: $DIR/logs/$name.log)"
    fi
    sleep 0.2
  done
}

# Starts a component in the background, its output in DIR/logs/NAME.log, its pid in DIR/pids.
launch() {  # launch NAME COMMAND...
  local name=$1
  shift
  "$@" >"$DIR/logs/$name.log" 2>&1 &
  echo "$! $name" >>"$DIR/pids"
}

# A key and a certificate signed by the test CA, for a server on 127.0.0.1 and as a client.
certificate() {  # certificate NAME SUBJECT
  local name=$1 subject=$2
  openssl ecparam -genkey -name prime256v1 -noout -out "$PKI/$name.key" 2>/dev/null
  openssl req -new -key "$PKI/$name.key" -subj "$subject" -out "$PKI/$name.csr" 2>/dev/null
  openssl x509 -req -in "$PKI/$name.csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" \
    -CAcreateserial -days 30 -out "$PKI/$name.crt" -extfile <(
      printf 'subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:kubernetes.default.svc\n'
      printf 'extendedKeyUsage=serverAuth,clientAuth\n') 2>/dev/null
}

make_pki() {
  PKI=$DIR/pki
  mkdir -p "$PKI"
  openssl ecparam -genkey -name prime256v1 -noout -out "$PKI/ca.key" 2>/dev/null
  openssl req -x509 -new -key "$PKI/ca.key" -subj "/CN=testbed-ca" -days 30 \
    -out "$PKI/ca.crt" 2>/dev/null
  openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$PKI/service-accounts.key" 2>/dev/null
  openssl pkey -in "$PKI/service-accounts.key" -pubout -out "$PKI/service-accounts.pub"
  certificate apiserver "/CN=kube-apiserver"
  certificate admin "/O=system:masters/CN=testbed-admin"
  certificate scheduler "/CN=system:kube-scheduler"
  certificate controller-manager "/CN=system:kube-controller-manager"
}

kubeconfig() {  # kubeconfig NAME: a kubeconfig with the client certificate NAME
  local name=$1
  cat >"$DIR/$name.kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: testbed
  cluster: {server: "https://127.0.0.1:$API_PORT", certificate-authority: "$PKI/ca.crt"}
users:
- name: $name
  user: {client-certificate: "$PKI/$name.crt", client-key: "$PKI/$name.key"}
contexts:
- name: testbed
  context: {cluster: testbed, user: $name}
current-context: testbed
EOF
}

scheduler_config() {
  if [ -n "${TESTBED_SCHEDULER_CONFIG:-}" ]; then
    cat "$TESTBED_SCHEDULER_CONFIG"
    return
  fi
  cat <<EOF
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
clientConnection: {kubeconfig: "$DIR/scheduler.kubeconfig", qps: 200, burst: 400}
leaderElection: {leaderElect: false}
EOF
}

prometheus_config() {
  cat <<EOF
global: {scrape_interval: ${TESTBED_SCRAPE_INTERVAL:-5s}}
scrape_configs:
  - job_name: kube-state-metrics
    honor_labels: true
    static_configs: [{targets: [$(ksm_targets)]}]
  - job_name: kube-scheduler
    scheme: https
    tls_config: {ca_file: "$PKI/ca.crt"}
    static_configs: [{targets: ['127.0.0.1:$SCHEDULER_PORT']}]
  - job_name: kwok
    static_configs: [{targets: ['127.0.0.1:$KWOK_PORT']}]
  # The kubelets' resource metrics, one target per node as on a real cluster, all served by kwok
  # (node-targets keeps the list).
  - job_name: kubelet
    file_sd_configs: [{files: ["$DIR/kubelet-targets.json"], refresh_interval: 5s}]
EOF
}

ksm_targets() {
  local port targets=()
  for port in "${KSM_PORTS[@]}"; do targets+=("'127.0.0.1:$port'"); done
  (IFS=,; echo "${targets[*]}")
}

# kube-state-metrics' flags from config/kube-state-metrics/flags.txt, one per line.
ksm_flags() {
  grep -E '^--' "$ROOT/config/kube-state-metrics/flags.txt"
}

start() {
  [ -x "$BIN/kube-apiserver" ] || die "no binaries in $BIN: run testbed/build.sh first"
  mkdir -p "$DIR/logs" "$DIR/etcd" "$DIR/prometheus"
  : >"$DIR/pids"
  ETCD_PORT=$(free_port); ETCD_PEER_PORT=$(free_port); API_PORT=$(free_port)
  SCHEDULER_PORT=$(free_port); KCM_PORT=$(free_port); KWOK_PORT=$(free_port)
  PROM_PORT=$(free_port)
  make_pki
  local name
  for name in admin scheduler controller-manager; do kubeconfig "$name"; done
  local admin=(--cacert "$PKI/ca.crt" --cert "$PKI/admin.crt" --key "$PKI/admin.key")

  launch etcd "$BIN/etcd" --name testbed --data-dir "$DIR/etcd" \
    --listen-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
    --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
    --initial-cluster "testbed=http://127.0.0.1:$ETCD_PEER_PORT" \
    --unsafe-no-fsync --quota-backend-bytes 4294967296
  wait_ok etcd 60 "http://127.0.0.1:$ETCD_PORT/health"

  launch kube-apiserver "$BIN/kube-apiserver" \
    --etcd-servers "http://127.0.0.1:$ETCD_PORT" --etcd-prefix /registry \
    --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$API_PORT" \
    --tls-cert-file "$PKI/apiserver.crt" --tls-private-key-file "$PKI/apiserver.key" \
    --client-ca-file "$PKI/ca.crt" \
    --service-account-key-file "$PKI/service-accounts.pub" \
    --service-account-signing-key-file "$PKI/service-accounts.key" \
    --service-account-issuer https://kubernetes.default.svc \
    --authorization-mode Node,RBAC --allow-privileged=true --endpoint-reconciler-type none \
    --service-cluster-ip-range 10.96.0.0/16 --max-requests-inflight 0 \
    --max-mutating-requests-inflight 0 --enable-priority-and-fairness=false
  wait_ok kube-apiserver 120 "https://127.0.0.1:$API_PORT/readyz" "${admin[@]}"
  "$BIN/kubectl" --kubeconfig "$DIR/admin.kubeconfig" create -f "$BIN/crds" >"$DIR/logs/crds.log"
  "$BIN/kubectl" --kubeconfig "$DIR/admin.kubeconfig" wait --for condition=established \
    --timeout 60s crd --all >>"$DIR/logs/crds.log"

  # The node lifecycle controller lifts the not-ready taint that admission puts on a new node
  # once kwok reports it Ready, as on a real cluster.
  launch kube-controller-manager "$BIN/kube-controller-manager" \
    --kubeconfig "$DIR/controller-manager.kubeconfig" \
    --authentication-kubeconfig "$DIR/controller-manager.kubeconfig" \
    --authorization-kubeconfig "$DIR/controller-manager.kubeconfig" \
    --bind-address 127.0.0.1 --secure-port "$KCM_PORT" \
    --authorization-always-allow-paths /healthz,/readyz,/livez,/metrics \
    --service-account-private-key-file "$PKI/service-accounts.key" --root-ca-file "$PKI/ca.crt" \
    --use-service-account-credentials --leader-elect=false \
    --controllers '*,-nodeipam,-cloud-node-lifecycle,-service-lb-controller,-node-route-controller' \
    --kube-api-qps 200 --kube-api-burst 400
  wait_ok kube-controller-manager 60 "https://127.0.0.1:$KCM_PORT/healthz" --cacert "$PKI/ca.crt" -k

  scheduler_config >"$DIR/scheduler.yaml"
  launch kube-scheduler "$BIN/kube-scheduler" --config "$DIR/scheduler.yaml" \
    --authentication-kubeconfig "$DIR/scheduler.kubeconfig" \
    --authorization-kubeconfig "$DIR/scheduler.kubeconfig" \
    --bind-address 127.0.0.1 --secure-port "$SCHEDULER_PORT" \
    --tls-cert-file "$PKI/apiserver.crt" --tls-private-key-file "$PKI/apiserver.key" \
    --authorization-always-allow-paths /healthz,/readyz,/livez,/metrics
  wait_ok kube-scheduler 60 "https://127.0.0.1:$SCHEDULER_PORT/readyz" --cacert "$PKI/ca.crt"

  launch kwok "$BIN/kwok" --kubeconfig "$DIR/admin.kubeconfig" --config "$BIN/kwok.yaml" \
    --manage-all-nodes=false --manage-nodes-with-annotation-selector kwok.x-k8s.io/node=fake \
    --server-address "127.0.0.1:$KWOK_PORT"
  wait_ok kwok 60 "http://127.0.0.1:$KWOK_PORT/healthz"
  launch node-targets "$BIN/node-targets" --kubeconfig "$DIR/admin.kubeconfig" \
    --out "$DIR/kubelet-targets.json" --address "127.0.0.1:$KWOK_PORT"

  local flags replica port name
  mapfile -t flags < <(ksm_flags)
  KSM_PORTS=()
  for replica in $(seq 1 "${TESTBED_KSM_REPLICAS:-1}"); do
    port=$(free_port)
    name=kube-state-metrics
    [ "$replica" = 1 ] || name+="-$replica"
    launch "$name" "$BIN/kube-state-metrics" --kubeconfig "$DIR/admin.kubeconfig" \
      --host 127.0.0.1 --port "$port" \
      --telemetry-host 127.0.0.1 --telemetry-port "$(free_port)" "${flags[@]}"
    wait_ok "$name" 60 "http://127.0.0.1:$port/healthz"
    KSM_PORTS+=("$port")
  done

  prometheus_config >"$DIR/prometheus.yml"
  launch prometheus prometheus --config.file "$DIR/prometheus.yml" \
    --storage.tsdb.path "$DIR/prometheus" --web.listen-address "127.0.0.1:$PROM_PORT" \
    --web.enable-lifecycle --log.level warn
  wait_ok prometheus 60 "http://127.0.0.1:$PROM_PORT/-/ready"

  cat >"$DIR/env" <<EOF
export KUBECONFIG="$DIR/admin.kubeconfig"
export TESTBED_DIR="$DIR"
export TESTBED_API_URL="https://127.0.0.1:$API_PORT"
export TESTBED_CA="$PKI/ca.crt"
export TESTBED_SCHEDULER_URL="https://127.0.0.1:$SCHEDULER_PORT"
export TESTBED_KSM_URL="http://127.0.0.1:${KSM_PORTS[0]}"
export TESTBED_KWOK_URL="http://127.0.0.1:$KWOK_PORT"
export PROM_URL="http://127.0.0.1:$PROM_PORT"
EOF
  wait_targets_up
  echo "testbed: ready; source $DIR/env"
}

# Until Prometheus has scraped kube-state-metrics and the scheduler successfully once.
wait_targets_up() {
  local deadline=$((SECONDS + 60)) up
  while :; do
    up=$(curl -fsS --max-time 2 "http://127.0.0.1:$PROM_PORT/api/v1/query" \
      --data-urlencode 'query=sum(up{job=~"kube-state-metrics|kube-scheduler"})' 2>/dev/null |
      jq -r '.data.result[0].value[1] // "0"' 2>/dev/null || echo 0)
    [ "$up" = "$((${#KSM_PORTS[@]} + 1))" ] && return 0
    [ "$SECONDS" -lt "$deadline" ] || die "Prometheus has not scraped kube-state-metrics and the scheduler"
    sleep 0.5
  done
}

stop() {
  [ -f "$DIR/pids" ] || return 0
  local pid name pids=()
  # The last started first: Prometheus and the exporters before the API server and etcd.
  while read -r pid name; do pids=("$pid" "${pids[@]}"); done <"$DIR/pids"
  for pid in "${pids[@]}"; do
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  rm -f "$DIR/pids"
}

[ $# -eq 2 ] || usage
mkdir -p "$2"
DIR=$(cd "$2" && pwd)
case $1 in
  start)
    trap 'stop' EXIT  # a part that does not come up stops those that did
    start
    trap - EXIT
    ;;
  stop) stop ;;
  *) usage ;;
esac

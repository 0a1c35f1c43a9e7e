# Sourced by the test scripts: free_port prints a loopback port nobody listens on now.
# It picks below the kernel's ephemeral range (ip_local_port_range): a port in that range can be
# taken between the probe and the server's bind by the local end of any outgoing connection of
# another test, which made Prometheus fail to start with "address already in use".
free_port() {
  local low=32768 port
  read -r low _ </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true
  local floor=10000
  [ "$low" -gt $((floor + 1000)) ] || floor=1024
  for _ in $(seq 1 50); do
    port=$((floor + RANDOM % (low - floor)))
    # bash /dev/tcp: a refused connect means nobody listens there.
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return 0
    fi
  done
  echo "FAIL: no free port found" >&2
  return 1
}

# Builds and removes the lab's namespaces, veth pairs and servers (sourced by scripts/lab.sh).
#
#   <isp> isp0 203.0.113.1/24 ──veth── wan0 <router> lan0 ──veth── eth0 <lan> 192.168.50.10/24, .20/24
#
# The router's links start down and without addresses: routerd brings them up and configures them from
# examples/nat-gateway.yaml. The isp namespace has no route to 192.168.50.0/24, so LAN traffic only gets
# answers through the router's masquerade, and the forwarded port only works through its DNAT.

create_topology() {
  local ns
  for ns in "${LAB_NAMESPACES[@]}"; do
    ip netns add "$ns"
    ip -n "$ns" link set lo up
  done
  # Links are created inside the namespaces directly; the host namespace never sees them.
  ip -n "$NS_ROUTER" link add wan0 type veth peer name isp0 netns "$NS_ISP"
  ip -n "$NS_ROUTER" link add lan0 type veth peer name eth0 netns "$NS_LAN"

  ip -n "$NS_ISP" address add "$ISP_ADDR/24" dev isp0
  ip -n "$NS_ISP" link set isp0 up

  ip -n "$NS_LAN" address add "$WEB_ADDR/24" dev eth0
  ip -n "$NS_LAN" address add "$GAME_ADDR/24" dev eth0
  ip -n "$NS_LAN" link set eth0 up
  ip -n "$NS_LAN" route add default via "$ROUTER_LAN_ADDR"
}

# start_server NAMESPACE LABEL ARGS...: a background lab server whose pid file says it is ready.
start_server() {
  local ns="$1" label="$2"
  shift 2
  local pidfile="$LAB_DIR/pids/$label.pid" log="$LAB_DIR/logs/$label.log"
  rm -f "$pidfile"
  ip netns exec "$ns" node "$LAB_JS/server.mjs" --label "$label" --pidfile "$pidfile" "$@" </dev/null >>"$log" 2>&1 &
  local launcher=$! i
  for ((i = 0; i < 50; i++)); do
    [[ -s "$pidfile" ]] && break
    kill -0 "$launcher" 2>/dev/null || break
    sleep 0.1
  done
  [[ -s "$pidfile" ]] || die "the $label server did not start in $ns: $(tail -n 3 "$log" 2>/dev/null)"
  info "$label: pid $(cat "$pidfile") in $ns ($*)"
}

start_servers() {
  start_server "$NS_ISP" isp-web --http "$ISP_ADDR:80"
  start_server "$NS_LAN" lan-client --http "$WEB_ADDR:80" --udp "$GAME_ADDR:27015"
}

# stop_pid PID: TERM, then KILL after 3 s. Only ever called with pids the lab started or found in its namespaces.
stop_pid() {
  local pid="$1" i
  kill -0 "$pid" 2>/dev/null || return 0
  kill -TERM "$pid" 2>/dev/null || true
  for ((i = 0; i < 30; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  kill -KILL "$pid" 2>/dev/null || true
}

stop_servers() {
  local pidfile pid ns
  for pidfile in "$LAB_DIR"/pids/*.pid; do
    [[ -f "$pidfile" ]] || continue
    pid="$(cat "$pidfile")"
    # A recycled pid belongs to someone else: only stop it if it is still our server.
    if [[ "$pid" =~ ^[0-9]+$ ]] && grep -qa "scripts/lab/server.mjs" "/proc/$pid/cmdline" 2>/dev/null; then
      info "stopping $(basename "$pidfile" .pid) (pid $pid)"
      stop_pid "$pid"
    fi
    rm -f "$pidfile"
  done
  # Anything else still running inside the lab's namespaces was started there by the lab or its user.
  for ns in $(existing_namespaces); do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do
      info "stopping pid $pid left in $ns ($(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-60))"
      stop_pid "$pid"
    done
  done
}

destroy_topology() {
  local ns
  for ns in $(existing_namespaces); do
    # Deleting a namespace deletes the veth ends inside it, and with them their peers.
    ip netns del "$ns" && info "deleted namespace $ns"
  done
}

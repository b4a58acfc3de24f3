# The lab's shared topology: namespaces, links and the address plan every part uses, and how the lab
# starts and stops its own processes (sourced by scripts/lab.sh).
#
#   <isp1> cpe0 ──veth── wan1 ┐
#                              <router> lan0 ──veth── eth0 <lan>
#   <isp2> cpe0 ──veth── wan2 ┘
#
# The router's links start down and without addresses: `routerd serve` configures them from the lab's
# copy of examples/home-router.yaml. The parts (scripts/lab/parts/) put the ISPs' servers and the LAN
# client on this topology.

NS_ISP1="$LAB_NAME-isp1"
NS_ISP2="$LAB_NAME-isp2"
NS_ROUTER="$LAB_NAME-router"
NS_LAN="$LAB_NAME-lan"
HOME_NAMESPACES=("$NS_ISP1" "$NS_ISP2" "$NS_ROUTER" "$NS_LAN")
# The namespaces of parts that can be left out: `down` removes them whether or not the part is on now.
OPTIONAL_NAMESPACES=()

# ISP 1: IPv4 by DHCP, IPv6 by router advertisements and prefix delegation.
ISP1_ADDR=198.51.100.1
ISP1_NET=198.51.100
ISP1_DNS=198.51.100.53
ISP1_ADDR6=2001:db8:1::1
ISP1_PD_POOL=2001:db8:1000::/40
# ISP 2: IPv4 only (as many second uplinks are).
ISP2_ADDR=203.0.113.1
ISP2_NET=203.0.113
# "The internet": one host both ISPs reach (each has it on its loopback), so it shows which uplink the
# router uses; the health checks ping it through each uplink.
INTERNET_ADDR=192.0.2.80
# The LAN (the router's side comes from the config).
ROUTER_LAN_ADDR=192.168.10.1
LAN_CLIENT_MAC=02:00:00:00:10:10
LAN_CLIENT_ADDR=192.168.10.10
# The LAN's web servers behind IngressService web (part ingress): name → address; all listen on WEB_PORT.
declare -A WEB_ADDR=([web1]=192.168.10.21 [web2]=192.168.10.22 [web3]=192.168.10.23)
WEB_SERVERS=(web1 web2 web3)
WEB_PORT=8000
# Fixed MACs make the router's link-local addresses known before routerd brings the links up.
WAN1_MAC=02:00:00:00:01:02
WAN2_MAC=02:00:00:00:02:02
LAN0_MAC=02:00:00:00:10:01

# The EUI-64 link-local address of a MAC (what the kernel gives the link).
link_local_of() {
  local IFS=: b
  read -ra b <<<"$1"
  printf 'fe80::%x:%x:%x:%x\n' $(((0x${b[0]} ^ 2) << 8 | 0x${b[1]})) $((0x${b[2]} << 8 | 0xff)) $((0xfe << 8 | 0x${b[3]})) $((0x${b[4]} << 8 | 0x${b[5]}))
}

create_topology() {
  local ns
  for ns in "${HOME_NAMESPACES[@]}"; do
    ip netns add "$ns"
    ip -n "$ns" link set lo up
    # Veth links never see a duplicate address: without DAD, addresses are usable the moment they appear.
    inns "$ns" sysctl -qw net.ipv6.conf.all.accept_dad=0 net.ipv6.conf.default.accept_dad=0
  done
  # Links are created inside the namespaces directly; the host namespace never sees them.
  ip -n "$NS_ROUTER" link add wan1 address "$WAN1_MAC" type veth peer name cpe0 netns "$NS_ISP1"
  ip -n "$NS_ROUTER" link add wan2 address "$WAN2_MAC" type veth peer name cpe0 netns "$NS_ISP2"
  ip -n "$NS_ROUTER" link add lan0 address "$LAN0_MAC" type veth peer name eth0 address "$LAN_CLIENT_MAC" netns "$NS_LAN"

  ip -n "$NS_ISP1" address add "$ISP1_ADDR/24" dev cpe0
  ip -n "$NS_ISP1" address add "$ISP1_ADDR6/64" dev cpe0
  ip -n "$NS_ISP2" address add "$ISP2_ADDR/24" dev cpe0
  for ns in "$NS_ISP1" "$NS_ISP2"; do
    # An ISP's access router forwards IPv6: its neighbour advertisements then say "router" (else the
    # router drops it from its default routers at the first one), and its own RAs are not for itself.
    inns "$ns" sysctl -qw net.ipv6.conf.all.forwarding=1 net.ipv6.conf.cpe0.accept_ra=0
    ip -n "$ns" address add "$INTERNET_ADDR/32" dev lo
    ip -n "$ns" link set cpe0 up
  done
}

destroy_topology() {
  local ns
  for ns in $(existing_namespaces); do
    # Deleting a namespace deletes the veth ends inside it, and with them their peers.
    ip netns del "$ns" && info "deleted namespace $ns"
  done
}

# start_bg NAME NS COMMAND...: runs a lab process in the background (`ip netns exec` execs, so the pid is
# the program's own); its pid goes to pids/NAME.pid, its output to logs/NAME.log.
start_bg() {
  local name="$1" ns="$2"
  shift 2
  # Not through a shell function: $! must be the program, not a subshell.
  ip netns exec "$ns" "$@" </dev/null >>"$LAB_DIR/logs/$name.log" 2>&1 &
  echo $! >"$LAB_DIR/pids/$name.pid"
}

# wait_file NAME FILE: waits (10 s at most) for a process's readiness file; dies with its log otherwise.
wait_file() {
  local name="$1" file="$2" pid i
  pid="$(cat "$LAB_DIR/pids/$name.pid")"
  for ((i = 0; i < 200; i++)); do
    [[ -e "$file" ]] && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.05
  done
  die "$name did not start: $(tail -n 5 "$LAB_DIR/logs/$name.log" 2>/dev/null)"
}

# lab_server NAME NS ARGS...: one of the lab's web/echo servers (scripts/lab/server.mjs), started in the
# background; wait_servers waits until all of them listen.
LAB_SERVERS=()
lab_server() {
  local name="$1" ns="$2"
  shift 2
  start_bg "$name" "$ns" node "$LAB_JS/server.mjs" --label "$name" --ready "$LAB_DIR/run-lab/$name.ready" "$@"
  LAB_SERVERS+=("$name")
}

wait_servers() {
  local name
  for name in "${LAB_SERVERS[@]}"; do wait_file "$name" "$LAB_DIR/run-lab/$name.ready"; done
}

# stop_pids SECONDS PID...: TERM to all at once, KILL to whatever still runs after SECONDS. Only ever
# called with pids the lab started or found in its namespaces.
stop_pids() {
  local grace="$1" pid i alive
  shift
  (($#)) || return 0
  kill -TERM "$@" 2>/dev/null || true
  for ((i = 0; i < grace * 10; i++)); do
    alive=()
    for pid in "$@"; do kill -0 "$pid" 2>/dev/null && alive+=("$pid"); done
    ((${#alive[@]})) || return 0
    sleep 0.1
  done
  kill -KILL "${alive[@]}" 2>/dev/null || true
}

# Stops routerd serve first (it stops its daemons, and the DHCP clients release their leases), then the
# lab's own processes, then anything still running inside the lab's namespaces (started there by the lab
# or its user).
stop_processes() {
  local pidfile pid ns name pids=() names=()
  pid="$(cat "$LAB_DIR/pids/routerd.pid" 2>/dev/null || true)"
  if [[ "$pid" =~ ^[0-9]+$ ]] && in_lab_namespace "$pid"; then
    info "stopping routerd serve (pid $pid) and the daemons it runs"
    stop_pids 10 "$pid"
  fi
  rm -f "$LAB_DIR/pids/routerd.pid"
  for pidfile in "$LAB_DIR"/pids/*.pid; do
    [[ -f "$pidfile" ]] || continue
    pid="$(cat "$pidfile")"
    name="$(basename "$pidfile" .pid)"
    # A recycled pid belongs to someone else: only stop it if it still runs in one of the lab's namespaces.
    if [[ "$pid" =~ ^[0-9]+$ ]] && in_lab_namespace "$pid"; then
      pids+=("$pid")
      names+=("$name")
    fi
    rm -f "$pidfile"
  done
  ((${#pids[@]} == 0)) || info "stopping ${names[*]}"
  for ns in $(existing_namespaces); do
    for pid in $(ip netns pids "$ns" 2>/dev/null); do
      [[ " ${pids[*]} " == *" $pid "* ]] && continue
      info "stopping pid $pid left in $ns ($(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-60))"
      pids+=("$pid")
    done
  done
  stop_pids 3 "${pids[@]}"
}

in_lab_namespace() {
  local ns
  for ns in $(ip netns identify "$1" 2>/dev/null); do
    [[ " ${LAB_NAMESPACES[*]} " == *" $ns "* ]] && return 0
  done
  return 1
}

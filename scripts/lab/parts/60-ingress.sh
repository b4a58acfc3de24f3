# Part ingress: IngressService "web" publishes tcp 80 on wan1's address (from its DHCPv4 lease) and spreads
# new connections at random over three web servers on the LAN (web1-web3 on port $WEB_PORT), each checked
# over HTTP by routerd-healthcheck; LAN hosts reach it on the public address too (NAT reflection).
# `npm run lab -- fail web2` kills one server: routerd serve takes it out of the service and new connections
# go to the others; `heal web2` starts it again and it is back in.

lab_failure "${WEB_SERVERS[*]}" ingress_fail ingress_heal "a web server behind IngressService web dies: new connections go to the others"

# A server killed by `fail` is marked, so `check` expects the service without it (and does not wait for it).
failed_marker() { echo "$LAB_DIR/run-lab/$1.failed"; }

ingress_setup() {
  # Three servers on the LAN host, each on an address of its own (as containers would be). The addresses
  # sit on its loopback, apart from eth0 whose addresses udhcpc manages; the host answers ARP for them on
  # eth0 all the same (arp_ignore 0: any local address).
  local name
  for name in "${WEB_SERVERS[@]}"; do
    ip -n "$NS_LAN" address add "${WEB_ADDR[$name]}/32" dev lo
    lab_server "$name" "$NS_LAN" --http "${WEB_ADDR[$name]}:$WEB_PORT"
  done
  info "$NS_LAN: web servers $(for name in "${WEB_SERVERS[@]}"; do printf '%s %s, ' "$name" "${WEB_ADDR[$name]}"; done)port $WEB_PORT (behind IngressService web)"
}

# running_servers: the web servers not killed by `fail`, comma-separated.
running_servers() {
  local name out=()
  for name in "${WEB_SERVERS[@]}"; do [[ -e "$(failed_marker "$name")" ]] || out+=("$name"); done
  local IFS=,
  echo "${out[*]}"
}

# backend_states: "web1=Healthy web2=Unhealthy ..." from routerctl health (probes ingress.web.<backend>).
backend_states() {
  routerctl_lab health 2>/dev/null | awk '$1 ~ /^ingress\.web\./ && NF >= 2 { sub(/^ingress\.web\./, "", $1); printf "%s%s=%s", sep, $1, $2; sep = " " } END { print "" }'
}

# in_service: the backends routerd_nat sends new connections to now (cheap enough to poll every 0.1 s).
in_service() {
  local table name out=()
  table="$(inns "$NS_ROUTER" nft list table ip routerd_nat 2>/dev/null)" || return 1
  for name in "${WEB_SERVERS[@]}"; do
    grep -qE "${WEB_ADDR[$name]//./\\.}( \. |:)$WEB_PORT" <<<"$table" && out+=("$name")
  done
  local IFS=,
  echo "${out[*]}"
}

# backends_ready: the running servers' health checks pass, and exactly those take new connections.
backends_ready() {
  local want states name
  want="$(running_servers)"
  states="$(backend_states)"
  for name in ${want//,/ }; do
    [[ " $states " == *" $name=Healthy "* ]] || { echo "health: ${states:-no answer}"; return 1; }
  done
  [[ "$(in_service)" == "$want" ]] || { echo "in service: $(in_service) (want $want)"; return 1; }
  echo "$states; new connections go to $want"
}

ingress_converge() {
  wait_for "IngressService web: the web servers' health checks pass" 60 backends_ready
}

ingress_checks() {
  local wan1
  wan1="$(wan_address wan1)"
  check "IngressService web: isp1 → $wan1:80, new connections spread over $(running_servers)" \
    probe "$NS_ISP1" http "$wan1" 80 --count 30 --expect-servers "$(running_servers)"
  check "…and the LAN client reaches it on that public address (NAT reflection)" \
    probe "$NS_LAN" http "$wan1" 80 --expect-peer "$ROUTER_LAN_ADDR"
}

ingress_status() {
  echo "  IngressService web: $(backend_states); new connections go to $(in_service)"
}

ingress_poke() {
  cat <<EOF
    npm run lab -- fail web2                              # a web server dies: watch it leave the service
    npm run lab -- heal web2                              # and come back
    $LAB_DIR/routerctl events --topic ingress               # every change of the service's backends
    ip netns exec $NS_ISP1 node $LAB_JS/probe.mjs http $(wan_address wan1 || echo WAN1) 80 --count 30
EOF
}

# watch_service SINCE_MS NAME WANT TIMEOUT_S: prints NAME's probe state and the backends in service as
# they change (times since SINCE_MS) until the backends in service are WANT; returns 1 on timeout.
watch_service() {
  local since="$1" name="$2" want="$3" timeout="$4" state="" last_state="" now="" last_now="" deadline
  deadline=$(($(now_ms) + timeout * 1000))
  while (($(now_ms) < deadline)); do
    state="$(backend_states | tr ' ' '\n' | sed -n "s/^$name=//p")"
    if [[ -n "$state" && "$state" != "$last_state" ]]; then
      progress "+$(ms_since "$since") $name's health check: $state"
      last_state="$state"
    fi
    now="$(in_service)"
    if [[ "$now" != "$last_now" ]]; then
      progress "+$(ms_since "$since") new connections go to ${now:-nobody}"
      last_now="$now"
    fi
    [[ "$now" == "$want" ]] && return 0
    sleep 0.1
  done
  return 1
}

ingress_fail() {
  local name="$1" pidfile t0 took wan1
  pidfile="$LAB_DIR/pids/$name.pid"
  step "Failing $name: its web server process is killed (the LAN host and the other servers stay up)"
  if [[ -e "$(failed_marker "$name")" || ! -f "$pidfile" ]]; then
    info "($name is already down)"
    return 0
  fi
  info "before: $(backend_states); new connections go to $(in_service)"
  touch "$(failed_marker "$name")"
  t0="$(now_ms)"
  kill -KILL "$(cat "$pidfile")" 2>/dev/null || true
  rm -f "$pidfile" "$LAB_DIR/run-lab/$name.ready"
  watch_service "$t0" "$name" "$(running_servers)" 60 || die "$name still takes new connections after 60 s (see $LAB_DIR/routerctl events --topic ingress)"
  took="$(last_event_after ingress.backends "$t0")"
  wan1="$(wan_address wan1)"
  wait_for "30 new connections from isp1 to $wan1:80 are answered by $(running_servers)" 20 \
    probe "$NS_ISP1" http "$wan1" 80 --count 30 --expect-servers "$(running_servers)" || true
  info "routerd serve took $name out of the service ${took:+$took }after it died (health check every 1 s, unhealthy after 2 failures)"
  info "bring it back: npm run lab -- heal $name"
}

ingress_heal() {
  local name="$1" t0 took wan1
  step "Healing $name: its web server starts again"
  if [[ ! -e "$(failed_marker "$name")" ]]; then
    info "($name was not down)"
    return 0
  fi
  t0="$(now_ms)"
  lab_server "$name" "$NS_LAN" --http "${WEB_ADDR[$name]}:$WEB_PORT"
  wait_file "$name" "$LAB_DIR/run-lab/$name.ready"
  rm -f "$(failed_marker "$name")"
  watch_service "$t0" "$name" "$(running_servers)" 60 || die "$name is not back in the service after 60 s (see $LAB_DIR/routerctl events --topic ingress)"
  took="$(last_event_after ingress.backends "$t0")"
  wan1="$(wan_address wan1)"
  wait_for "30 new connections from isp1 to $wan1:80 are answered by $(running_servers)" 20 \
    probe "$NS_ISP1" http "$wan1" 80 --count 30 --expect-servers "$(running_servers)" || true
  info "routerd serve put $name back into the service ${took:+$took }after it started"
}

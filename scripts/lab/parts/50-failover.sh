# Part failover: a HealthCheck per uplink pings "the internet" ($INTERNET_ADDR, which both ISPs have)
# through that uplink; the EgressRoutePolicy sends the LAN's new connections out of wan1 while it is
# healthy, else out of wan2. `npm run lab -- fail isp1` takes isp1's copy of that address away (its link
# and DHCP stay up: the trouble is beyond it) and shows the switch as it happens; `heal isp1` brings it back.

lab_failure "isp1 isp2" failover_fail failover_heal "an ISP's internet goes away: the uplink failover (heal: the failback)"

# health_phases: "isp1-internet=Healthy isp2-internet=Healthy" from routerctl health (the uplinks' probes).
health_phases() {
  routerctl_lab health 2>/dev/null | awk '$1 ~ /^isp[0-9]+-internet$/ && NF >= 2 { printf "%s%s=%s", sep, $1, $2; sep = " " } END { print "" }'
}

both_healthy() {
  local p
  p="$(health_phases)"
  [[ "$p" == *"isp1-internet=Healthy"* && "$p" == *"isp2-internet=Healthy"* ]] || { echo "${p:-no answer from the healthcheck daemon}"; return 1; }
  echo "$p"
}

# The candidate routerd's policy table sends new LAN connections to, from the mark it gives them (cheap
# enough to poll every 0.1 s). The marks are the candidates' in examples/home-router.yaml.
active_uplink() {
  local mark
  mark="$(inns "$NS_ROUTER" nft list table ip routerd_policy 2>/dev/null | sed -n 's/.*@set_lan_clients ct state new ct mark set \(0x[0-9a-f]*\).*/\1/p' | head -n 1)"
  case "$((${mark:-0}))" in
    $((0x101))) echo isp1 ;;
    $((0x102))) echo isp2 ;;
    *) return 1 ;;
  esac
}

uplink_is() {
  local now
  now="$(active_uplink)" || { echo "no routerd_policy table yet"; return 1; }
  [[ "$now" == "$1" ]] || { echo "active: $now"; return 1; }
  echo "new LAN connections leave through $now"
}

failover_converge() {
  wait_for "health checks: both uplinks reach the internet" 60 both_healthy
  wait_for "EgressRoutePolicy internet: isp1 carries the LAN's traffic" 30 uplink_is isp1
}

# internet_via ISP: the LAN client reaches "the internet" through ISP (its web server answers).
internet_via() {
  probe "$NS_LAN" http "$INTERNET_ADDR" 80 --expect-server "$1-web" --expect-peer "$(wan_address "wan${1#isp}")"
}

failover_checks() {
  check "health checks: both uplinks Healthy" both_healthy
  check "the LAN client reaches the internet ($INTERNET_ADDR) through isp1, the preferred uplink" internet_via isp1
}

failover_status() {
  echo "  health: $(health_phases); new LAN connections leave through $(active_uplink || echo '(no policy yet)')"
}

failover_show() {
  info "\$ routerctl health"
  routerctl_patient health | sed 's/^/    /'
}

failover_poke() {
  cat <<EOF
    npm run lab -- fail isp1                              # isp1's internet goes away: watch the failover
    npm run lab -- heal isp1                              # and come back (after failbackDelay)
    $LAB_DIR/routerctl events --topic egress                # every switch, with its time
    ip netns exec $NS_ROUTER nft list table ip routerd_policy; ip -n $NS_ROUTER rule
EOF
}

# watch_uplink SINCE_MS UPLINK TIMEOUT_S: prints health and uplink changes as they happen (times since SINCE_MS)
# until UPLINK carries the LAN's new connections; returns 1 on timeout.
watch_uplink() {
  local since="$1" want="$2" timeout="$3" health="" last_health="" active="" last_active="" deadline
  deadline=$(($(now_ms) + timeout * 1000))
  while (($(now_ms) < deadline)); do
    health="$(health_phases)"
    if [[ -n "$health" && "$health" != "$last_health" ]]; then
      progress "+$(ms_since "$since") health: $health"
      last_health="$health"
    fi
    active="$(active_uplink)"
    if [[ "$active" != "$last_active" ]]; then
      progress "+$(ms_since "$since") new LAN connections leave through $active"
      last_active="$active"
    fi
    [[ "$active" == "$want" ]] && return 0
    sleep 0.1
  done
  return 1
}

failover_fail() {
  local isp="$1" ns other before t0 took
  ns="$LAB_NAME-$isp"
  other=isp1
  [[ "$isp" == isp1 ]] && other=isp2
  before="$(active_uplink || echo none)"
  step "Failing $isp: $INTERNET_ADDR on $isp's side stops answering (its link and DHCP stay up)"
  info "before: $(health_phases); new LAN connections leave through $before"
  t0="$(now_ms)"
  ip -n "$ns" address del "$INTERNET_ADDR/32" dev lo 2>/dev/null || info "($isp's internet was already down)"
  if [[ "$before" != "$isp" ]]; then
    watch_uplink "$t0" "$before" 4 || true
    info "$isp did not carry the LAN's traffic: nothing moves ($before keeps it)"
    return 0
  fi
  if ! watch_uplink "$t0" "$other" 60; then
    die "no failover to $other within 60 s (see $LAB_DIR/routerctl events)"
  fi
  took="$(last_event_after egress.switched "$t0")"
  wait_for "a new LAN connection to $INTERNET_ADDR is answered through $other" 20 internet_via "$other" || true
  info "failover: routerd serve switched to $other ${took:+$took }after $isp's internet went away"
  info "bring it back: npm run lab -- heal $isp"
}

failover_heal() {
  local isp="$1" ns t0 before took delay
  ns="$LAB_NAME-$isp"
  before="$(active_uplink || echo none)"
  step "Healing $isp: $INTERNET_ADDR on $isp's side answers again"
  t0="$(now_ms)"
  if ! ip -n "$ns" address add "$INTERNET_ADDR/32" dev lo 2>/dev/null; then
    info "($isp's internet was not down)"
  fi
  delay="$(sed -n 's/.*failbackDelay: \([0-9a-z]*\).*/\1/p' "$LAB_CONFIG" | head -n 1)"
  if [[ "$isp" == isp1 && "$before" != isp1 ]]; then
    info "isp1 is preferred (weight 200): traffic moves back once it stayed healthy for failbackDelay (${delay:-10s})"
    watch_uplink "$t0" isp1 60 || die "no failback to isp1 within 60 s"
    took="$(last_event_after egress.switched "$t0")"
    wait_for "a new LAN connection to $INTERNET_ADDR is answered through isp1" 20 internet_via isp1 || true
    info "failback: routerd serve switched back to isp1 ${took:+$took }after isp1's internet came back"
  else
    wait_for "$isp healthy again" 60 both_healthy || true
    info "new LAN connections leave through $(active_uplink)"
  fi
}

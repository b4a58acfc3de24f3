# The static NAT walkthrough (`npm run lab -- nat`): routerd reconciles examples/nat-gateway.yaml once
# (`reconcile --once`, no serve, no daemons) in a router between an isp and a lan namespace, and the
# checks prove NAT, two port forwards and hairpin NAT (sourced by scripts/lab.sh).
#
#   <isp> isp0 203.0.113.1/24 ──veth── wan0 <router> lan0 ──veth── eth0 <lan> 192.168.50.10/24, .20/24

NS_ISP="$LAB_NAME-isp"
NAT_NAMESPACES=("$NS_ISP" "$NS_ROUTER" "$NS_LAN")
NAT_CONFIG="$REPO/examples/nat-gateway.yaml"
NAT_ISP_ADDR=203.0.113.1
NAT_ROUTER_WAN_ADDR=203.0.113.2
NAT_ROUTER_LAN_ADDR=192.168.50.1
NAT_WEB_ADDR=192.168.50.10
NAT_GAME_ADDR=192.168.50.20

nat_topology() {
  local ns
  for ns in "${NAT_NAMESPACES[@]}"; do
    ip netns add "$ns"
    ip -n "$ns" link set lo up
  done
  ip -n "$NS_ROUTER" link add wan0 type veth peer name isp0 netns "$NS_ISP"
  ip -n "$NS_ROUTER" link add lan0 type veth peer name eth0 netns "$NS_LAN"
  ip -n "$NS_ISP" address add "$NAT_ISP_ADDR/24" dev isp0
  ip -n "$NS_ISP" link set isp0 up
  ip -n "$NS_LAN" address add "$NAT_WEB_ADDR/24" dev eth0
  ip -n "$NS_LAN" address add "$NAT_GAME_ADDR/24" dev eth0
  ip -n "$NS_LAN" link set eth0 up
  ip -n "$NS_LAN" route add default via "$NAT_ROUTER_LAN_ADDR"
  info "$NS_ISP: isp0 $NAT_ISP_ADDR/24 (no route to the LAN), web server :80"
  info "$NS_ROUTER: wan0, lan0 (down, no addresses: routerd configures them)"
  info "$NS_LAN: eth0 $NAT_WEB_ADDR/24 and $NAT_GAME_ADDR/24, default via $NAT_ROUTER_LAN_ADDR; web .10:80, udp echo .20:27015"
  lab_server isp-web "$NS_ISP" --http "$NAT_ISP_ADDR:80"
  lab_server lan-web "$NS_LAN" --http "$NAT_WEB_ADDR:80" --udp "$NAT_GAME_ADDR:27015"
  wait_servers
}

nat_up() {
  step "Creating the NAT walkthrough: namespaces $NS_ISP, $NS_ROUTER, $NS_LAN"
  nat_topology

  step "routerd validate --config examples/nat-gateway.yaml"
  check "config is valid" node "$ROUTERD_JS" validate --config "$NAT_CONFIG"
  checks_wait

  step "routerd plan (in $NS_ROUTER; nothing is changed yet)"
  routerd_lab plan --config "$NAT_CONFIG" | sed 's/^/    /' || true

  step "routerd reconcile --once (in $NS_ROUTER)"
  local out code=0
  out="$(routerd_lab reconcile --once --config "$NAT_CONFIG" 2>&1)" || code=$?
  sed 's/^/    /' <<<"$out"
  if ((code == 0)); then record "routerd reconcile --once" PASS "$(tail -n 1 <<<"$out")"; else record "routerd reconcile --once" FAIL "exit $code"; fi

  step "Checking that the router works"
  nat_checks
}

plan_is_empty() {
  routerd_lab plan --config "$NAT_CONFIG" --detailed-exitcode >/dev/null || return 1
  echo "routerd plan --detailed-exitcode: exit 0, nothing to change"
}

nat_checks() {
  check "reconcile is idempotent (a second plan has no changes)" plan_is_empty
  check "ledger records what routerd created" ledger_is_complete
  check_fails "isp has no route back to the LAN (so answers need NAT)" ip -n "$NS_ISP" route get "$NAT_WEB_ADDR"
  check "LAN client pings the isp ($NAT_WEB_ADDR → $NAT_ISP_ADDR)" inns "$NS_LAN" ping -c 1 -W 2 "$NAT_ISP_ADDR"
  check "masquerade: isp sees LAN traffic from $NAT_ROUTER_WAN_ADDR" \
    probe "$NS_LAN" http "$NAT_ISP_ADDR" 80 --expect-peer "$NAT_ROUTER_WAN_ADDR"
  check "port forward tcp $NAT_ROUTER_WAN_ADDR:8080 → $NAT_WEB_ADDR:80 (source kept)" \
    probe "$NS_ISP" http "$NAT_ROUTER_WAN_ADDR" 8080 --expect-local "$NAT_WEB_ADDR" --expect-peer "$NAT_ISP_ADDR"
  check "port forward udp $NAT_ROUTER_WAN_ADDR:27015 → $NAT_GAME_ADDR:27015" \
    probe "$NS_ISP" udp "$NAT_ROUTER_WAN_ADDR" 27015 --expect-local "$NAT_GAME_ADDR" --expect-peer "$NAT_ISP_ADDR"
  check "hairpin: LAN $NAT_GAME_ADDR reaches $NAT_ROUTER_WAN_ADDR:8080 → $NAT_WEB_ADDR:80" \
    probe "$NS_LAN" http "$NAT_ROUTER_WAN_ADDR" 8080 --source "$NAT_GAME_ADDR" --expect-local "$NAT_WEB_ADDR" --expect-peer "$NAT_ROUTER_LAN_ADDR"
  checks_wait
}

nat_poke() {
  cat <<EOF
    $LAB_DIR/routerd plan --config $NAT_CONFIG      # routerd in the router namespace, state in the lab dir
    $LAB_DIR/routerd ledger                          # what routerd created (artifacts.json)
    ip netns exec $NS_ROUTER nft list ruleset       # the rendered routerd_nat table
    ip -n $NS_ROUTER address; ip -n $NS_ROUTER route
    ip netns exec $NS_LAN node $LAB_JS/probe.mjs http $NAT_ISP_ADDR 80
    ip netns exec $NS_ISP node $LAB_JS/probe.mjs http $NAT_ROUTER_WAN_ADDR 8080
EOF
}

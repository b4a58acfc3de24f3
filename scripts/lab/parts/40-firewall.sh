# Part firewall: the zone firewall and the port forward, checked from outside. Nothing from the uplinks
# reaches the router or the LAN unless it answers the LAN's own traffic or is the forwarded port; IPv6,
# which has no NAT to hide behind, is protected by the same rules.

firewall_checks() {
  local wan1
  wan1="$(wan_address wan1)"
  check "port forward: isp1 reaches $wan1:8080 → the LAN client's web server, source kept" \
    probe "$NS_ISP1" http "$wan1" 8080 --expect-server lan-web --expect-local "$LAN_CLIENT_ADDR" --expect-peer "$ISP1_ADDR"
  check "firewall drops isp1 → the router (tcp $wan1:22 gets no answer at all)" \
    probe "$NS_ISP1" http "$wan1" 22 --timeout 1000 --expect-drop
  check "…while from the LAN the router answers (tcp $ROUTER_LAN_ADDR:22 refused: nothing listens)" \
    probe_refused "$NS_LAN" "$ROUTER_LAN_ADDR" 22
  check "firewall drops isp1 → the LAN client over IPv6 (no unsolicited inbound connections)" \
    probe "$NS_ISP1" http "$(lan_v6)" 80 --timeout 1000 --expect-drop
}

# probe_refused NS HOST PORT: passes when the host answers with a refusal (it was reached, not dropped).
probe_refused() {
  local out
  if out="$(probe "$1" http "$2" "$3" --timeout 1000 2>&1)"; then
    echo "unexpected answer: $out"
    return 1
  fi
  [[ "$out" == *refused* ]] || { echo "$out"; return 1; }
  echo "$out"
}

firewall_poke() {
  cat <<EOF
    ip netns exec $NS_ROUTER nft list table inet routerd_filter   # zones, rules, the holes routerd's services need
    ip netns exec $NS_ROUTER nft list table ip routerd_nat        # masquerade on both uplinks, the port forward
    ip netns exec $NS_ISP1 node $LAB_JS/probe.mjs http $(wan_address wan1 || echo WAN1) 8080
EOF
}

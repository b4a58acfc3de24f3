# Part wan-dhcp: both ISPs hand out the router's WAN addresses by DHCPv4 (dnsmasq) and run a web server;
# routerd's DHCPv4Client resources take the leases, and NAT44Rules masquerade the LAN behind them.

needs dnsmasq dnsmasq-base

# More options isp1's DHCPv4 server hands out (dnsmasq arguments); later parts add theirs when sourced.
ISP1_DHCP_OPTIONS=(--dhcp-option=option:dns-server,"$ISP1_DNS")

# The ISP's DHCPv4 server: dnsmasq on its side of the link, DHCP only (port=0: no DNS).
isp_dhcp_server() {
  local name="$1" ns="$2" net="$3"
  shift 3
  mkdir -p "$LAB_DIR/$name"
  # --no-ping: an ISP's server on a point-to-point link need not ping an address before offering it (3 s).
  start_bg "$name-dhcp" "$ns" dnsmasq --keep-in-foreground --conf-file=/dev/null --port=0 --no-ping \
    --interface=cpe0 --bind-interfaces --dhcp-authoritative --log-dhcp --log-facility=- \
    --dhcp-range="$net.100,$net.199,10m" --dhcp-option=option:router,"$net.1" \
    --dhcp-leasefile="$LAB_DIR/$name/dhcp.leases" --pid-file= "$@"
}

wan_dhcp_setup() {
  isp_dhcp_server isp1 "$NS_ISP1" "$ISP1_NET" "${ISP1_DHCP_OPTIONS[@]}"
  isp_dhcp_server isp2 "$NS_ISP2" "$ISP2_NET"
  lab_server isp1-web "$NS_ISP1" --http 0.0.0.0:80 --http '[::]:80'
  lab_server isp2-web "$NS_ISP2" --http 0.0.0.0:80
  info "$NS_ISP1: cpe0 $ISP1_ADDR/24, DHCPv4 pool $ISP1_NET.100-199 and DNS server $ISP1_DNS (dnsmasq), web server :80"
  info "$NS_ISP2: cpe0 $ISP2_ADDR/24, DHCPv4 pool $ISP2_NET.100-199 (dnsmasq), web server :80"
}

# wan_address IFNAME: the router's IPv4 address on a WAN link (what the DHCPv4 lease gave it).
wan_address() {
  ip -n "$NS_ROUTER" -4 -o address show dev "$1" 2>/dev/null | awk '{ split($4, a, "/"); print a[1]; exit }' | grep .
}

wan_dhcp_converge() {
  wait_for "wan1 leased by isp1 (DHCPv4)" 60 wan_address wan1
  wait_for "wan2 leased by isp2 (DHCPv4)" 60 wan_address wan2
}

lease_applied() {
  local ifname="$1" net="$2" addr
  addr="$(wan_address "$ifname")" || { echo "no address on $ifname"; return 1; }
  [[ "$addr" == "$net".* ]] || { echo "$ifname has $addr, not from $net.0/24"; return 1; }
  ip -n "$NS_ROUTER" -4 route show default dev "$ifname" | grep -q "via $net.1" || { echo "no default route via $net.1 on $ifname"; return 1; }
  echo "$ifname $addr/24, default route via $net.1"
}

wan_dhcp_checks() {
  check "wan1 has its DHCPv4 lease from isp1 applied (address, route)" lease_applied wan1 "$ISP1_NET"
  check "wan2 has its DHCPv4 lease from isp2 applied (address, route)" lease_applied wan2 "$ISP2_NET"
  check_fails "isp1 has no route back to the LAN (so answers need NAT)" ip -n "$NS_ISP1" route get "$LAN_CLIENT_ADDR"
  check "NAT: the LAN client reaches isp1's web server over IPv4, seen as wan1's address" \
    probe "$NS_LAN" http "$ISP1_ADDR" 80 --expect-server isp1-web --expect-peer "$(wan_address wan1)"
  check "NAT: the LAN client reaches isp2's web server over IPv4, seen as wan2's address" \
    probe "$NS_LAN" http "$ISP2_ADDR" 80 --expect-server isp2-web --expect-peer "$(wan_address wan2)"
}

wan_dhcp_poke() {
  cat <<EOF
    $LAB_DIR/routerctl daemon dhcpv4-client/isp1 status   # the lease as the client holds it
    $LAB_DIR/routerctl daemon dhcpv4-client/isp1 command renew
    cat $LAB_DIR/isp1/dhcp.leases                          # the ISP's side of it
EOF
}

# Part lan: a LAN host configured the way a laptop would be, with stock tools: busybox udhcpc for IPv4
# (routerd's DHCPv4Server, a DHCPv4Reservation for its MAC) and the kernel's SLAAC for IPv6 (routerd's
# IPv6RouterAdvertisement). It also runs a web server: the port forward's target.

needs udhcpc udhcpc

lan_setup() {
  # A laptop's own choices: ask again every second while there is no answer.
  mkdir -p "$LAB_DIR/lan"
  start_bg lan-dhcp "$NS_LAN" env LAB_RESOLV="$LAB_DIR/lan/resolv.conf" udhcpc -f -i eth0 -s "$LAB_JS/udhcpc.sh" -T 1 -t 3 -A 1 -x hostname:media
  lab_server lan-web "$NS_LAN" --http 0.0.0.0:80 --http '[::]:80'
  ip -n "$NS_LAN" link set eth0 up
  info "$NS_LAN: eth0 ($LAN_CLIENT_MAC), udhcpc (resolver: $LAB_DIR/lan/resolv.conf) and SLAAC, web server :80"
}

lan_v4() {
  ip -n "$NS_LAN" -4 -o address show dev eth0 2>/dev/null | awk '{ print $4; exit }' | grep .
}

# The client's SLAAC address in the delegated /64 (not deprecated, not tentative).
lan_v6() {
  ip -n "$NS_LAN" -6 -o address show dev eth0 scope global -deprecated -tentative 2>/dev/null | awk '{ split($4, a, "/"); print a[1]; exit }' | grep .
}

lan_converge() {
  wait_for "the LAN client got its address by DHCPv4 (udhcpc)" 60 lan_v4
  wait_for "the LAN client configured an IPv6 address by SLAAC" 60 lan_v6
}

client_v4_ok() {
  local addr
  addr="$(lan_v4)" || { echo "no IPv4 address on the client"; return 1; }
  [[ "$addr" == "$LAN_CLIENT_ADDR/24" ]] || { echo "the client has $addr, not its reserved $LAN_CLIENT_ADDR/24"; return 1; }
  ip -n "$NS_LAN" -4 route show default | grep -q "via $ROUTER_LAN_ADDR" || { echo "no default route via $ROUTER_LAN_ADDR"; return 1; }
  grep -qx "nameserver $ROUTER_LAN_ADDR" "$LAB_DIR/lan/resolv.conf" 2>/dev/null || { echo "no DNS server $ROUTER_LAN_ADDR from the router's DHCP ($(tr '\n' ' ' <"$LAB_DIR/lan/resolv.conf" 2>/dev/null))"; return 1; }
  echo "$addr (its DHCPv4Reservation), default route and DNS server $ROUTER_LAN_ADDR"
}

client_v6_ok() {
  local addr lan
  addr="$(lan_v6)" || { echo "no SLAAC address on the client"; return 1; }
  lan="$(lan_prefix)" || { echo "no delegated prefix on the router's LAN"; return 1; }
  [[ "$addr" == "${lan%%::*}:"* ]] || { echo "$addr is not in the router's LAN /64 (${lan})"; return 1; }
  ip -n "$NS_LAN" -6 route show default | grep -q "proto ra" || { echo "no default route from router advertisements"; return 1; }
  echo "$addr in the delegated /64, default route from the router's RA"
}

lan_checks() {
  check "the LAN client got its reserved IPv4 address, the router as gateway and DNS server by DHCP" client_v4_ok
  check "the LAN client configured IPv6 by SLAAC from the router's advertisements" client_v6_ok
  check "the LAN client reaches isp1's web server over IPv6 (no NAT: seen as its own address)" \
    probe "$NS_LAN" http "$ISP1_ADDR6" 80 --expect-server isp1-web --expect-peer "$(lan_v6)"
}

lan_poke() {
  cat <<EOF
    ip -n $NS_LAN address; ip -n $NS_LAN route; ip -n $NS_LAN -6 route
    cat $LAB_DIR/state/dnsmasq/main/leases 2>/dev/null || ls $LAB_DIR/state/dnsmasq/main   # routerd's LAN DHCP leases
EOF
}

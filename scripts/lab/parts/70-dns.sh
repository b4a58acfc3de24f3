# Part dns: the router answers the LAN's DNS with routerd-dns-resolver (DNSResolver lan in
# examples/home-router.yaml): the lan zone's own names (router.lan), the DHCP clients' names (media.lan, the
# name the LAN host gave in its request, with its PTR record), and everything else forwarded to ISP 1's DNS
# server, whose address comes from wan1's DHCPv4 lease. Here ISP 1's server is a dnsmasq in the isp1
# namespace that knows www.isp.example (the "internet" host both ISPs reach).

needs kdig knot-dnsutils

ISP_WWW=www.isp.example

dns_setup() {
  ip -n "$NS_ISP1" address add "$ISP1_DNS/32" dev lo
  start_bg isp1-dns "$NS_ISP1" dnsmasq --keep-in-foreground --conf-file=/dev/null --pid-file= --log-facility=- \
    --listen-address="$ISP1_DNS" --bind-interfaces --no-resolv --no-hosts --host-record="$ISP_WWW,$INTERNET_ADDR"
  info "$NS_ISP1: DNS server $ISP1_DNS (dnsmasq) knows $ISP_WWW = $INTERNET_ADDR"
}

# dns_ask NAME TYPE EXPECTED: the LAN client asks the router; succeeds when the answer holds EXPECTED.
dns_ask() {
  local out
  out="$(inns "$NS_LAN" kdig @"$ROUTER_LAN_ADDR" +short +timeout=2 +retry=0 "$1" "$2" 2>&1)" || { echo "no answer: $out"; return 1; }
  grep -qx "$3" <<<"$out" || { echo "$1 $2: ${out:-empty answer} (want $3)"; return 1; }
  echo "$1 $2 → $3 (asked $ROUTER_LAN_ADDR from the LAN)"
}

# dns_ptr_of ADDRESS: its reverse name (10.10.168.192.in-addr.arpa).
dns_ptr_of() {
  local IFS=. a
  read -ra a <<<"$1"
  echo "${a[3]}.${a[2]}.${a[1]}.${a[0]}.in-addr.arpa"
}

dns_converge() {
  wait_for "the router answers the LAN's DNS (routerd-dns-resolver)" 60 dns_ask router.lan A "$ROUTER_LAN_ADDR"
  wait_for "the LAN client's name from its DHCP lease resolves" 60 dns_ask media.lan A "$LAN_CLIENT_ADDR"
  wait_for "names beyond the LAN resolve through isp1's DNS server" 60 dns_ask "$ISP_WWW" A "$INTERNET_ADDR"
}

dns_checks() {
  check "DNS: the router answers its own lan zone (router.lan)" dns_ask router.lan A "$ROUTER_LAN_ADDR"
  check "DNS: the LAN client's DHCP name resolves both ways (media.lan and its PTR)" \
    dns_ask "$(dns_ptr_of "$LAN_CLIENT_ADDR")" PTR media.lan.
  check "DNS: other names are forwarded to isp1's DNS server (from wan1's lease) and cached" \
    dns_ask "$ISP_WWW" A "$INTERNET_ADDR"
  check "DNS: the LAN client reaches $ISP_WWW by name (isp1's web server)" \
    probe "$NS_LAN" http "$(inns "$NS_LAN" kdig @"$ROUTER_LAN_ADDR" +short "$ISP_WWW" A)" 80 --expect-server isp1-web
}

dns_status() {
  echo "  DNS: $(routerctl_lab dns stats 2>/dev/null | grep -m1 -iE 'queries|hit' || echo 'routerd-dns-resolver not answering')"
}

dns_show() {
  info "\$ routerctl dns lookup media.lan"
  routerctl_lab dns lookup media.lan | sed 's/^/    /'
}

dns_poke() {
  cat <<EOF
    ip netns exec $NS_LAN kdig @$ROUTER_LAN_ADDR media.lan      # the LAN client's name, from its DHCP lease
    ip netns exec $NS_LAN kdig @$ROUTER_LAN_ADDR $ISP_WWW   # forwarded to isp1's DNS server, then cached
    $LAB_DIR/routerctl dns stats                               # queries, cache hits, upstream health
EOF
}

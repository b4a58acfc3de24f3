# Part pd: ISP 1 offers IPv6: router advertisements on its link (the router's IPv6 default route) and
# DHCPv6 prefix delegation with kea. routerd's DHCPv6PrefixDelegation gets a /56, and IPv6DelegatedAddress
# puts /64 number 1 of it on the LAN.

needs kea-dhcp6 kea-dhcp6-server

# Options kea hands out with the delegation (kea "option-data" entries, JSON); later parts add theirs when sourced.
ISP1_DHCPV6_OPTIONS=()

kea_config() {
  local dir="$1" options
  options="$(IFS=,; echo "${ISP1_DHCPV6_OPTIONS[*]}")"
  cat <<EOF
{
  "Dhcp6": {
    "interfaces-config": {
      "interfaces": [ "cpe0" ],
      "service-sockets-max-retries": 600, "service-sockets-retry-wait-time": 100
    },
    "control-socket": { "socket-type": "unix", "socket-name": "$dir/kea-ctrl.sock" },
    "lease-database": { "type": "memfile", "persist": true, "name": "$dir/kea-leases.csv", "lfc-interval": 0 },
    "data-directory": "$dir",
    "server-id": { "type": "EN", "enterprise-id": 32473, "identifier": "6c6162", "persist": false },
    "option-data": [ $options ],
    "renew-timer": 300, "rebind-timer": 480, "preferred-lifetime": 600, "valid-lifetime": 900,
    "subnet6": [ {
      "id": 1, "subnet": "2001:db8:1::/64", "interface": "cpe0", "rapid-commit": true,
      "pd-pools": [ { "prefix": "${ISP1_PD_POOL%/*}", "prefix-len": ${ISP1_PD_POOL#*/}, "delegated-len": 56 } ]
    } ],
    "loggers": [ { "name": "kea-dhcp6", "output_options": [ { "output": "stdout" } ], "severity": "INFO" } ]
  }
}
EOF
}

pd_setup() {
  local dir="$LAB_DIR/isp1"
  mkdir -p "$dir"
  kea_config "$dir" >"$dir/kea6.json"
  # kea writes its pid and lock files where these say, not under /run/kea. cpe0 has no carrier until routerd
  # brings wan1 up: kea retries opening its socket every 100 ms (for a minute).
  start_bg isp1-kea "$NS_ISP1" env KEA_PIDFILE_DIR="$dir" KEA_LOCKFILE_DIR="$dir" kea-dhcp6 -c "$dir/kea6.json"
  # The ISP's router advertisements: the router's IPv6 default route (dnsmasq only announces, ra-only).
  start_bg isp1-ra "$NS_ISP1" dnsmasq --keep-in-foreground --conf-file=/dev/null --port=0 --interface=cpe0 --bind-interfaces \
    --enable-ra --dhcp-range="${ISP1_ADDR6%::*}::,ra-only,64" --ra-param=cpe0,4,1800 --pid-file=
  # kea installs no routes: the ISP routes its delegated prefixes to the router's WAN link-local address.
  ip -n "$NS_ISP1" -6 route add "$ISP1_PD_POOL" via "$(link_local_of "$WAN1_MAC")" dev cpe0
  info "$NS_ISP1: cpe0 $ISP1_ADDR6/64 with router advertisements (dnsmasq), prefix delegation from $ISP1_PD_POOL (kea)"
}

# The delegated /64 on the router's LAN link.
lan_prefix() {
  ip -n "$NS_ROUTER" -6 -o address show dev lan0 scope global 2>/dev/null | awk '{ print $4; exit }' | grep .
}

pd_converge() {
  wait_for "a /56 delegated by isp1 (DHCPv6-PD); the LAN's /64 on lan0" 60 lan_prefix
  wait_for "isp1's router advertisements give the router its IPv6 default route" 60 v6_default_route
}

delegation_applied() {
  local lan
  lan="$(lan_prefix)" || { echo "no delegated address on lan0"; return 1; }
  local held
  held="$(ip -n "$NS_ROUTER" -6 route show type unreachable | awk '$2 ~ /\/56$/ { print $2; exit }' | grep .)" || { echo "no unreachable route for a delegated /56"; return 1; }
  echo "delegated $held; lan0 $lan"
}

v6_default_route() {
  ip -n "$NS_ROUTER" -6 route show default | grep "dev wan1" | grep . || { echo "no IPv6 default route on wan1"; return 1; }
}

pd_checks() {
  check "the router's IPv6 default route comes from isp1's router advertisements" v6_default_route
  check "a delegated /56 numbers the LAN: /64 number 1 on lan0" delegation_applied
}

pd_poke() {
  cat <<EOF
    $LAB_DIR/routerctl daemon dhcpv6-client/isp1-pd status   # the delegated prefix, lifetimes, server
    ip -n $NS_ROUTER -6 address show dev lan0; ip -n $NS_ROUTER -6 route
EOF
}

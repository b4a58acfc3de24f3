#!/bin/sh
# udhcpc event script for the lab's LAN client: puts the lease on the interface, as a distribution's
# default.script does, with the DNS servers in $LAB_RESOLV instead of /etc/resolv.conf. udhcpc sets
# $interface, $ip, $mask (prefix length), $router and $dns.
case "$1" in
  deconfig) ip -4 address flush dev "$interface" ;;
  bound | renew)
    ip -4 address replace "$ip/$mask" dev "$interface"
    [ -n "$router" ] && ip -4 route replace default via "${router%% *}" dev "$interface"
    : >"$LAB_RESOLV"
    for d in $dns; do echo "nameserver $d" >>"$LAB_RESOLV"; done
    echo "$1 $ip/$mask router ${router:-none} dns ${dns:-none} lease ${lease:-?}s"
    ;;
esac
exit 0

#!/bin/sh
# udhcpc event script for the lab's LAN client: puts the lease on the interface, as a distribution's
# default.script does (without touching /etc/resolv.conf). udhcpc sets $interface, $ip, $mask (prefix
# length) and $router.
case "$1" in
  deconfig) ip -4 address flush dev "$interface" ;;
  bound | renew)
    ip -4 address replace "$ip/$mask" dev "$interface"
    [ -n "$router" ] && ip -4 route replace default via "${router%% *}" dev "$interface"
    echo "$1 $ip/$mask router ${router:-none} lease ${lease:-?}s"
    ;;
esac
exit 0

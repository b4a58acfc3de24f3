# Part wireguard (on by default; ROUTERD_LAB_WIREGUARD=0 npm run lab leaves it out): a road warrior — a laptop
# on a mobile network somewhere beyond isp1 (namespace <name>-road, 100.64.1.2) — dials the router's WireGuard
# on wan1's address and reaches the LAN through the tunnel. The router gets a WireGuardInterface (the kernel
# module where the kernel has one, else wireguard-go), its tunnel address, a WireGuardPeer for the laptop and
# the firewall a real router needs for it (udp 51820 in from the internet, a vpn zone allowed into the LAN),
# added to the lab's copy of the config before serve starts. Keys are made with `wg genkey` in the lab dir.
# Numbered before the parts whose convergence takes long, so the laptop dials as soon as wan1 has its lease.

LAB_WIREGUARD="${ROUTERD_LAB_WIREGUARD:-1}"
NS_ROAD="$LAB_NAME-road"
OPTIONAL_NAMESPACES+=("$NS_ROAD")
# wireguard-go's control sockets are host-wide (/var/run/wireguard/IFNAME.sock, fixed by wireguard-go and wg):
# the lab's device names carry its name, so two labs (or a lab and a test) never share one.
WG_RUN_DIR=/var/run/wireguard
WG_ROUTER_IF="$LAB_NAME-wg"
WG_ROAD_IF="$LAB_NAME-rw"
WG_PORT=51820
WG_NET=10.77.0
# The laptop's mobile network (carrier-grade NAT space), routed by isp1.
ROAD_NET=100.64.1
LAN_NET="${ROUTER_LAN_ADDR%.*}.0/24"

# Whether or not the part is on now: a wireguard-go killed hard leaves its control socket behind, and the
# lab removes /var/run/wireguard again if it made it.
wireguard_teardown() {
  local ifname
  for ifname in "$WG_ROUTER_IF" "$WG_ROAD_IF"; do
    if [[ -S "$WG_RUN_DIR/$ifname.sock" ]]; then rm -f "$WG_RUN_DIR/$ifname.sock" && info "removed $WG_RUN_DIR/$ifname.sock"; fi
  done
  if [[ -e "$LAB_DIR/wireguard/made-run-dir" ]]; then rmdir "$WG_RUN_DIR" 2>/dev/null && info "removed $WG_RUN_DIR (the lab made it)"; fi
  return 0
}

if [[ "$LAB_WIREGUARD" == 1 ]]; then
  HOME_NAMESPACES+=("$NS_ROAD")
  needs wg wireguard-tools
  # Without the kernel module, both sides run wireguard-go (routerd's backend: auto picks it by itself).
  [[ -e /sys/module/wireguard ]] || modinfo wireguard >/dev/null 2>&1 || needs wireguard-go wireguard-go

  wireguard_setup() {
    local dir="$LAB_DIR/wireguard" keys
    keys="$LAB_DIR/root/etc/routerd/wireguard" # the router's /etc/routerd/wireguard (routerd's --root)
    mkdir -p "$dir" "$keys"
    [[ -d "$WG_RUN_DIR" ]] || : >"$dir/made-run-dir"
    (
      umask 077
      wg genkey >"$keys/wg.key"
      wg genkey >"$dir/road-warrior.key"
    )
    # The laptop's mobile network, beyond isp1 (which routes it: isp1 forwards IPv4 for it).
    ip -n "$NS_ISP1" link add road0 type veth peer name eth0 netns "$NS_ROAD"
    ip -n "$NS_ISP1" address add "$ROAD_NET.1/24" dev road0
    ip -n "$NS_ROAD" address add "$ROAD_NET.2/24" dev eth0
    ip -n "$NS_ISP1" link set road0 up
    ip -n "$NS_ROAD" link set eth0 up
    ip -n "$NS_ROAD" route add default via "$ROAD_NET.1"
    inns "$NS_ISP1" sysctl -qw net.ipv4.ip_forward=1
    # The laptop's WireGuard: the kernel's where it has the module, else wireguard-go (in the foreground: a lab
    # process). It gets its key, address and peer once wan1 has its lease (wg_road_dial).
    local backend=kernel
    ip -n "$NS_ROAD" link add "$WG_ROAD_IF" type wireguard 2>/dev/null || { backend=wireguard-go && start_bg road-wireguard-go "$NS_ROAD" wireguard-go -f "$WG_ROAD_IF"; }
    info "$NS_ROAD: a road warrior on a mobile network beyond isp1 ($ROAD_NET.2), WireGuard $WG_ROAD_IF $WG_NET.2 ($backend); keys in $dir"
  }

  # The router's side, with the laptop's public key: the device, its address, the peer, and the firewall.
  wireguard_resources() {
    cat <<YAML
- apiVersion: net.routerd.net/v1alpha1
  kind: WireGuardInterface
  metadata: { name: wg }
  spec: { ifname: $WG_ROUTER_IF, listenPort: $WG_PORT, privateKeyFile: /etc/routerd/wireguard/wg.key }
- apiVersion: net.routerd.net/v1alpha1
  kind: IPv4StaticAddress
  metadata: { name: wg-v4 }
  spec: { interface: wg, address: $WG_NET.1/24 }
- apiVersion: net.routerd.net/v1alpha1
  kind: WireGuardPeer
  metadata: { name: road-warrior }
  spec: { interface: wg, publicKey: "$(wg pubkey <"$LAB_DIR/wireguard/road-warrior.key")", allowedIPs: [$WG_NET.2/32] }
- apiVersion: firewall.routerd.net/v1alpha1
  kind: FirewallZone
  metadata: { name: vpn }
  spec: { role: trust, interfaces: [wg] }
- apiVersion: firewall.routerd.net/v1alpha1
  kind: FirewallRule
  metadata: { name: wireguard-in }
  spec: { fromZone: internet, toZone: self, protocol: udp, port: $WG_PORT, action: accept }
- apiVersion: firewall.routerd.net/v1alpha1
  kind: FirewallRule
  metadata: { name: vpn-to-home }
  spec: { fromZone: vpn, toZone: home, action: accept }
- apiVersion: firewall.routerd.net/v1alpha1
  kind: FirewallRule
  metadata: { name: vpn-ping }
  spec: { fromZone: vpn, toZone: self, protocol: icmp, action: accept }
YAML
  }

  # wg_backend NS IFNAME: kernel or wireguard-go (a tun device with wireguard-go's control socket).
  wg_backend() {
    if ip -n "$1" -d link show "$2" 2>/dev/null | grep -qw wireguard; then echo kernel; else echo wireguard-go; fi
  }

  # Once its device is there and wan1 has its lease, the laptop gets its key, its tunnel address, a route to
  # the LAN and the router as its peer; the keepalive makes it dial at once. Safe to repeat.
  wg_road_dial() {
    local wan1 router_key
    [[ "$(wg_backend "$NS_ROAD" "$WG_ROAD_IF")" == kernel || -S "$WG_RUN_DIR/$WG_ROAD_IF.sock" ]] || { echo "$WG_ROAD_IF is not there yet"; return 1; }
    wan1="$(wan_address wan1)" || { echo "wan1 has no address yet"; return 1; }
    router_key="$(wg pubkey <"$LAB_DIR/root/etc/routerd/wireguard/wg.key")"
    inns "$NS_ROAD" wg set "$WG_ROAD_IF" private-key "$LAB_DIR/wireguard/road-warrior.key" \
      peer "$router_key" endpoint "$wan1:$WG_PORT" allowed-ips "$WG_NET.0/24,$LAN_NET" persistent-keepalive 25 || return 1
    ip -n "$NS_ROAD" address replace "$WG_NET.2/24" dev "$WG_ROAD_IF" &&
      ip -n "$NS_ROAD" link set "$WG_ROAD_IF" up &&
      ip -n "$NS_ROAD" route replace "$LAN_NET" dev "$WG_ROAD_IF" || return 1
    echo "its peer is the router at $wan1:$WG_PORT, for $WG_NET.0/24 and $LAN_NET"
  }

  # The laptop's side: seconds since its last handshake with the router.
  wg_road_handshake() {
    local t
    t="$(inns "$NS_ROAD" wg show "$WG_ROAD_IF" latest-handshakes 2>&1 | awk 'NR == 1 { print $2 }')"
    [[ "$t" =~ ^[0-9]+$ ]] && ((t > 0)) || { echo "no handshake yet on $WG_ROAD_IF"; return 1; }
    echo "the road warrior's last handshake with the router: $(($(date +%s) - t)) s ago"
  }

  # The router's side, as routerd reports it (routerctl status --json): WireGuardPeer/road-warrior Connected.
  wg_peer_connected() {
    local s
    s="$(routerctl_patient status --json)" || { echo "$s"; return 1; }
    node -e '
      const s = JSON.parse(process.argv[1]);
      const d = s.resources.find((r) => r.name === "WireGuardPeer/road-warrior")?.details ?? {};
      const i = s.resources.find((r) => r.name === "WireGuardInterface/wg")?.details ?? {};
      console.log(`WireGuardPeer/road-warrior ${d.phase ?? "unknown"}${d.latestEndpoint ? ` from ${d.latestEndpoint}` : ""}, handshake ${d.latestHandshake ?? "none"}, rx ${d.transferRxBytes ?? 0} B tx ${d.transferTxBytes ?? 0} B; WireGuardInterface/wg backend ${i.backend ?? "?"}, port ${i.listenPort ?? "?"}`);
      process.exit(d.phase === "Connected" ? 0 : 1);' "$s"
  }

  # wg_ping NS ADDRESS: one ping; its round trip.
  wg_ping() {
    local out
    out="$(inns "$1" ping -c 1 -W 2 "$2" 2>&1)" || { echo "no answer from $2: $(tail -n 1 <<<"$out")"; return 1; }
    echo "$2 answered: $(grep -o 'time=.*' <<<"$out")"
  }

  wireguard_converge() {
    wait_for "the road warrior dials the router's wan1 address (WireGuard over isp1)" 30 wg_road_dial
    wait_for "the road warrior's handshake with the router" 30 wg_road_handshake || return 1
    # serve reads WireGuard devices when it reconciles (a change, a daemon event, every 30 s): ask for one now,
    # as an operator would, so its status shows the handshake.
    routerctl_lab daemon routerd/core command reconcile >/dev/null 2>&1 || true
  }

  wireguard_checks() {
    # serve reads the device when it reconciles (on a change or a daemon event, at the latest every 30 s).
    check "WireGuard: the road warrior's handshake, as routerd reports it (routerctl status)" within 45 wg_peer_connected
    check "WireGuard: the router reaches the road warrior's tunnel address $WG_NET.2" within 10 wg_ping "$NS_ROUTER" "$WG_NET.2"
    check "WireGuard: the road warrior reaches the LAN client's web server through the tunnel (no NAT: seen as $WG_NET.2)" \
      within 10 probe "$NS_ROAD" http "$LAN_CLIENT_ADDR" 80 --expect-server lan-web --expect-peer "$WG_NET.2"
  }

  wireguard_show() {
    info "\$ wg show $WG_ROUTER_IF   (in $NS_ROUTER; $(wg_backend "$NS_ROUTER" "$WG_ROUTER_IF"))"
    inns "$NS_ROUTER" wg show "$WG_ROUTER_IF" 2>&1 | grep . | sed 's/^/    /'
  }

  wireguard_status() {
    echo "  WireGuard: $(wg_road_handshake 2>&1)"
  }

  wireguard_poke() {
    cat <<POKE
    ip netns exec $NS_ROUTER wg show $WG_ROUTER_IF                  # the router's side: the peer, its endpoint, handshake, transfer
    ip netns exec $NS_ROAD ping $LAN_CLIENT_ADDR               # the road warrior reaches the LAN through the tunnel
    ip netns exec $NS_ROAD node $LAB_JS/probe.mjs http $LAN_CLIENT_ADDR 80
POKE
  }
fi

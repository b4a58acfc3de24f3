# Part bgp (on by default; ROUTERD_LAB_BGP=0 npm run lab leaves it out): isp1 also speaks BGP. A gobgpd in the isp1 namespace
# (AS 64500, passive, any router on 198.51.100.0/24 may peer) announces a few prefixes; the router gets a
# BGPRouter and a BGPPeer (added to the lab's copy of the config before serve starts) and its routerd-bgp
# installs isp1's prefixes in the kernel FIB with routerd's protocol (219, routerd-bgp). It adds
# routerd-bgp and two gobgpds; the session comes up while the other parts converge (routerd-bgp retries
# every 5 s, fast timers, until wan1 has its lease).

LAB_BGP="${ROUTERD_LAB_BGP:-1}"
BGP_ISP_ASN=64500
BGP_ROUTER_ASN=64512
BGP_PREFIXES=(10.200.1.0/24 10.200.2.0/24 10.200.3.0/24)

if [[ "$LAB_BGP" == 1 ]]; then
  needs gobgpd gobgpd
  needs gobgp gobgp

  bgp_setup() {
    mkdir -p "$LAB_DIR/bgp"
    cat >"$LAB_DIR/bgp/isp1-gobgpd.toml" <<TOML
[global.config]
  as = $BGP_ISP_ASN
  router-id = "$ISP1_ADDR"
[[peer-groups]]
  [peer-groups.config]
    peer-group-name = "routers"
    peer-as = $BGP_ROUTER_ASN
  [[peer-groups.afi-safis]]
    [peer-groups.afi-safis.config]
      afi-safi-name = "ipv4-unicast"
[[dynamic-neighbors]]
  [dynamic-neighbors.config]
    prefix = "$ISP1_NET.0/24"
    peer-group = "routers"
TOML
    start_bg isp1-gobgpd "$NS_ISP1" gobgpd -f "$LAB_DIR/bgp/isp1-gobgpd.toml" --api-hosts "unix://$LAB_DIR/bgp/isp1-gobgpd.sock" --pprof-disable --log-level warn
    info "$NS_ISP1: gobgpd AS $BGP_ISP_ASN on $ISP1_ADDR announces ${BGP_PREFIXES[*]} to the router"
  }

  # isp1's gobgp CLI.
  bgp_isp() { inns "$NS_ISP1" gobgp --target "unix://$LAB_DIR/bgp/isp1-gobgpd.sock" "$@"; }

  bgp_announce() {
    local p
    bgp_isp global >/dev/null 2>&1 || return 1
    for p in "${BGP_PREFIXES[@]}"; do bgp_isp global rib add "$p" nexthop "$ISP1_ADDR" -a ipv4 >/dev/null; done
    echo "isp1 announces ${BGP_PREFIXES[*]}"
  }

  # The BGP resources for the lab's copy of the config.
  bgp_resources() {
    cat <<YAML
- apiVersion: net.routerd.net/v1alpha1
  kind: BGPRouter
  metadata: { name: edge }
  spec: { asn: $BGP_ROUTER_ASN, routerID: $ROUTER_LAN_ADDR, timers: { profile: fast }, importPolicy: { allowedPrefixes: [10.200.0.0/16] } }
- apiVersion: net.routerd.net/v1alpha1
  kind: BGPPeer
  metadata: { name: isp1 }
  spec: { routerRef: edge, peerASN: $BGP_ISP_ASN, peers: [$ISP1_ADDR] }
YAML
  }

  # bgp_fib_has_all: every announced prefix is in the router's FIB with routerd-bgp's protocol.
  bgp_fib_has_all() {
    local fib p n=0
    fib="$(ip -n "$NS_ROUTER" -4 route show proto 219)"
    for p in "${BGP_PREFIXES[@]}"; do grep -q "^$p via $ISP1_ADDR " <<<"$fib" && n=$((n + 1)); done
    echo "$n of ${#BGP_PREFIXES[@]} isp1 prefixes in the router's FIB: $(grep -c . <<<"$fib") routes proto routerd-bgp (ip route show proto 219)"
    ((n == ${#BGP_PREFIXES[@]}))
  }

  bgp_established() {
    local out
    out="$(routerctl_lab bgp peers --json 2>&1)" || { echo "$out"; return 1; }
    node -e '
      const peers = JSON.parse(process.argv[1]);
      const p = peers.find((x) => x.address === process.argv[2]);
      console.log(p ? `${p.address} AS ${p.peerAsn} ${p.state}, ${p.acceptedPrefixes} prefixes accepted` : "no neighbor " + process.argv[2]);
      process.exit(p?.state === "Established" ? 0 : 1);' "$out" "$ISP1_ADDR"
  }

  bgp_converge() {
    wait_for "isp1's gobgpd announces its prefixes" 20 bgp_announce
    wait_for "the router's BGP session with isp1 is Established" 60 bgp_established
    wait_for "the router installs isp1's BGP prefixes in its FIB" 30 bgp_fib_has_all
  }

  bgp_checks() {
    check "BGP: the session with isp1's gobgpd is Established (routerctl bgp peers)" bgp_established
    check "BGP: isp1's prefixes are in the router's FIB with routerd's protocol 219" bgp_fib_has_all
  }

  bgp_show() {
    info "\$ routerctl bgp peers; ip route show proto routerd-bgp"
    routerctl_lab bgp peers 2>&1 | sed 's/^/    /'
    ip -n "$NS_ROUTER" -4 route show proto 219 | sed 's/^/    /'
  }

  bgp_status() {
    echo "  BGP: $(bgp_fib_has_all 2>&1 | tail -1)"
  }

  bgp_poke() {
    cat <<POKE
    $LAB_DIR/routerctl bgp peers                              # the session with isp1's gobgpd
    $LAB_DIR/routerctl bgp routes                             # best paths and what the FIB holds
    ip netns exec $NS_ISP1 gobgp --target unix://$LAB_DIR/bgp/isp1-gobgpd.sock global rib add 10.200.9.0/24 nexthop $ISP1_ADDR
POKE
  }
fi

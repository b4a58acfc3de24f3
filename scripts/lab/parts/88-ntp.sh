# Part ntp (on by default; ROUTERD_LAB_NTP=0 npm run lab leaves it out): isp1 runs an NTP server (chronyd)
# and names it in its leases: DHCPv4 option 42 (dnsmasq) and DHCPv6 option 31, SNTP servers (kea, with the
# delegation). The router gets an NTPClient (provider chrony, servers from both leases), added to the lab's
# copy of the config: routerd writes its block into the router's chrony sources (under routerd's --root) and
# has chronyd reload them. chronyd on the router is the host's time daemon, which routerd configures but does
# not run: the lab starts it, as the host's init would. Every chronyd here runs with -x: none ever sets the
# clock, and each keeps its config, state and sockets in the lab dir (never /etc or /var/lib).

LAB_NTP="${ROUTERD_LAB_NTP:-1}"

if [[ "$LAB_NTP" == 1 ]]; then
  needs chronyd chrony
  ISP1_DHCP_OPTIONS+=(--dhcp-option=option:ntp-server,"$ISP1_ADDR")
  ISP1_DHCPV6_OPTIONS+=("{ \"name\": \"sntp-servers\", \"data\": \"$ISP1_ADDR6\" }")

  # Where routerd's chrony provider writes its block and finds chronyd's command socket (under its --root,
  # $LAB_DIR/root), as on a Debian host.
  NTP_SOURCES_DIR=etc/chrony/sources.d
  NTP_SOURCES=$NTP_SOURCES_DIR/routerd.sources
  NTP_SOCKET=run/chrony/chronyd.sock

  # ntp_chronyd NAME NS CONFIG_LINES...: a chronyd in the foreground with -x (never touches the clock) and its
  # own config, pid, drift and NTS files in the lab dir.
  ntp_chronyd() {
    local name="$1" ns="$2" dir
    shift 2
    dir="$LAB_DIR/ntp/$name"
    mkdir -p "$dir"
    printf '%s\n' "$@" "pidfile $dir/chronyd.pid" "driftfile $dir/chrony.drift" "ntsdumpdir $dir" >"$dir/chrony.conf"
    start_bg "$name-chronyd" "$ns" chronyd -d -x -u root -f "$dir/chrony.conf"
  }

  ntp_setup() {
    local root="$LAB_DIR/root"
    # chronyd wants its command socket's directory closed to others.
    mkdir -p -m 750 "$LAB_DIR/ntp" "$LAB_DIR/ntp/isp1" "$root/${NTP_SOCKET%/*}"
    mkdir -p "$root/$NTP_SOURCES_DIR"
    ntp_chronyd isp1 "$NS_ISP1" "local stratum 8" "allow" "bindcmdaddress $LAB_DIR/ntp/isp1/chronyd.sock" "cmdport 0"
    # The router's time daemon: a client only (port 0), sources from the directory routerd writes into.
    ntp_chronyd router "$NS_ROUTER" "sourcedir $root/$NTP_SOURCES_DIR" "port 0" "bindcmdaddress $root/$NTP_SOCKET" "cmdport 0"
    info "$NS_ISP1: NTP server (chronyd, local stratum 8, -x) on $ISP1_ADDR and $ISP1_ADDR6, named in its leases (DHCPv4 option 42, DHCPv6 option 31)"
    info "$NS_ROUTER: chronyd (-x: never sets the clock), the time daemon routerd's NTPClient configures (sources $root/$NTP_SOURCES_DIR)"
  }

  ntp_resources() {
    cat <<YAML
- apiVersion: system.routerd.net/v1alpha1
  kind: NTPClient
  metadata: { name: time }
  spec:
    provider: chrony
    source: dhcp
    serverFrom:
      - { resource: DHCPv4Client/isp1, field: ntpServers }
      - { resource: DHCPv6PrefixDelegation/isp1-pd, field: sntpServers, optional: true }
YAML
  }

  ntp_chronyc() { inns "$NS_ROUTER" chronyc -n -h "$LAB_DIR/root/$NTP_SOCKET" "$@"; }

  # routerd's block in the router's chrony sources holds isp1's server from both leases.
  ntp_rendered() {
    local block
    block="$(grep '^server' "$LAB_DIR/root/$NTP_SOURCES" 2>/dev/null)" || { echo "no servers in $LAB_DIR/root/$NTP_SOURCES yet"; return 1; }
    grep -q "^server $ISP1_ADDR " <<<"$block" && grep -q "^server $ISP1_ADDR6 " <<<"$block" || { echo "$LAB_DIR/root/$NTP_SOURCES: $(paste -sd';' <<<"$block")"; return 1; }
    echo "$LAB_DIR/root/$NTP_SOURCES: $(paste -sd';' <<<"$block" | sed 's/;/; /g')"
  }

  # NTPClient/time's status, as routerd reports it.
  ntp_status_dhcp() {
    local s
    s="$(routerctl_patient status --json)" || { echo "$s"; return 1; }
    node -e '
      const d = JSON.parse(process.argv[1]).resources.find((r) => r.name === "NTPClient/time")?.details ?? {};
      console.log(`NTPClient/time: source ${d.source ?? "?"}, servers ${(d.servers ?? []).join(", ") || "none"}`);
      process.exit(d.source === "dhcp" && (d.servers ?? []).includes(process.argv[2]) ? 0 : 1);' "$s" "$ISP1_ADDR"
  }

  # The router's chronyd has selected isp1's server ("^*") and says so in its tracking (stratum 9 = isp1's 8 + 1).
  ntp_synced() {
    local sources tracking
    sources="$(ntp_chronyc sources 2>&1)" || { echo "chronyc: $sources"; return 1; }
    grep -qE "^\^\* +($ISP1_ADDR|$ISP1_ADDR6) " <<<"$sources" || { echo "not synchronised yet: $(grep '^\^' <<<"$sources" | awk '{ print $1, $2 }' | paste -sd' ')"; return 1; }
    tracking="$(ntp_chronyc tracking 2>&1)"
    echo "chronyc tracking: $(grep -E '^(Reference ID|Stratum)' <<<"$tracking" | sed 's/  *: /: /' | paste -sd' ' | sed 's/ Stratum/, stratum/')"
  }

  ntp_converge() {
    wait_for "routerd writes isp1's NTP servers from the leases into chrony's sources (NTPClient)" 60 ntp_rendered
    wait_for "the router's chronyd syncs to isp1's NTP server" 60 ntp_synced
  }

  ntp_checks() {
    check "NTP: routerd renders isp1's servers from DHCPv4 option 42 and DHCPv6 option 31 into chrony's sources" ntp_rendered
    # serve publishes a resource's status at each reconcile; one whose lease was briefly unknown to serve (a
    # daemon slow to answer on a loaded machine) shows no fields until the next (at the latest 30 s later).
    check "NTP: NTPClient/time reports its servers from the DHCP leases (routerctl status)" within 45 ntp_status_dhcp
    check "NTP: the router's chronyd is synchronised to isp1's server (-x: the clock is never set)" within 30 ntp_synced
  }

  ntp_show() {
    info "\$ cat $LAB_DIR/root/$NTP_SOURCES; chronyc sources   (the router's chronyd)"
    sed 's/^/    /' "$LAB_DIR/root/$NTP_SOURCES" 2>&1
    ntp_chronyc sources 2>&1 | sed 's/^/    /'
  }

  ntp_status() {
    echo "  NTP: $(ntp_synced 2>&1 | tail -n 1)"
  }

  ntp_poke() {
    cat <<POKE
    cat $LAB_DIR/root/$NTP_SOURCES        # routerd's block: isp1's servers from the leases
    ip netns exec $NS_ROUTER chronyc -h $LAB_DIR/root/$NTP_SOCKET sources   # the router's chronyd
POKE
  }
fi

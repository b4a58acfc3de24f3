// The programs routerd ships and what each needs from the service manager. Units and rc.d scripts are
// rendered from this table, so a new daemon is one entry here.

export interface ProgramSpec {
  /** Daemon name as used for sockets (`<run-dir>/<daemon>/<instance>.sock`); undefined for the core. */
  daemon?: string;
  program: string;
  description: string;
  /** Runs once per resource instance (systemd template `name@.service`). */
  templated: boolean;
  /**
   * `%i` is the instance (the resource's name). `{interface}` is the interface the instance runs on:
   * the instance name unless the operator sets it (systemd: ROUTERD_INTERFACE in
   * /etc/routerd/<daemon>/<instance>.env; FreeBSD: <rcname>_<instance>_interface in rc.conf).
   */
  args: string[];
  capabilities: string[];
  /** Extra writable paths besides its own state and run directories. */
  writable: string[];
  /** The core writes /proc/sys (sysctl reconcile); daemons never do. */
  writesKernelTunables: boolean;
  /** The core loads the kernel modules the config needs (modprobe); daemons never do. */
  loadsKernelModules?: true;
  addressFamilies: string[];
}

export const PATHS = {
  bin: "/usr/bin",
  config: "/etc/routerd/router.yaml",
  stateDir: "/var/lib/routerd",
  runDir: "/run/routerd",
  freebsdBin: "/usr/local/bin",
  freebsdConfig: "/usr/local/etc/routerd/router.yaml",
};

/**
 * Environment every routerd program runs with, whoever starts it (the systemd units, serve's built-in
 * supervisor). MALLOC_ARENA_MAX: glibc gives each thread that mallocs an arena of its own (up to 8 per core)
 * and an arena keeps the pages it once held; in Node those threads are V8's compiler and GC helpers and
 * libuv's pool, and their arenas grew routerd-bgp's RSS by MB per hour while its live memory stayed flat
 * (docs/performance.md, "Soak"). Two: the main thread's and one the helper threads share. (FreeBSD's
 * jemalloc has no such variable: the rc.d scripts leave it out.)
 */
export const PROGRAM_ENVIRONMENT: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: "2" };

const INET = ["AF_UNIX", "AF_INET", "AF_INET6", "AF_NETLINK"];

/** Placeholder in `args` for an instance's interface (see ProgramSpec.args). */
export const INTERFACE = "{interface}";

/** The per-instance environment file a systemd template reads (ROUTERD_INTERFACE=...). */
export function instanceEnvFile(p: ProgramSpec): string {
  return `/etc/routerd/${p.daemon ?? p.program}/%i.env`;
}

export const PROGRAMS: readonly ProgramSpec[] = [
  {
    program: "routerd",
    description: "routerd declarative router control plane",
    templated: false,
    args: ["serve", "--config", PATHS.config, "--state-dir", PATHS.stateDir, "--run-dir", PATHS.runDir],
    // NET_ADMIN: links, addresses, routes, rules, nftables. SYS_ADMIN: sethostname. NET_RAW/BIND: daemons it starts.
    // SYS_MODULE: the kernel modules the config needs (vrf, ip6_tunnel, ...).
    capabilities: ["CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_NET_BIND_SERVICE", "CAP_SYS_ADMIN", "CAP_SYS_MODULE", "CAP_KILL", "CAP_CHOWN"],
    // /etc/systemd: its own units, networkd and resolved drop-ins, the timesyncd block; /etc/chrony, /etc/ntpsec: NTPClient.
    writable: ["/etc/sysctl.d", "/etc/routerd", "/etc/systemd", "/etc/chrony", "/etc/ntpsec"],
    writesKernelTunables: true,
    loadsKernelModules: true,
    addressFamilies: INET,
  },
  {
    daemon: "healthcheck",
    program: "routerd-healthcheck",
    description: "routerd health checks (%i)",
    templated: true,
    args: ["--instance", "%i", "--config", `${PATHS.stateDir}/healthcheck/%i/config.json`, "--state-dir", PATHS.stateDir, "--run-dir", PATHS.runDir],
    // NET_RAW: ICMP echo. NET_ADMIN: SO_MARK and SO_BINDTODEVICE so a probe tests one uplink.
    capabilities: ["CAP_NET_RAW", "CAP_NET_ADMIN"],
    writable: [],
    writesKernelTunables: false,
    addressFamilies: INET,
  },
  {
    daemon: "dhcpv4-client",
    program: "routerd-dhcpv4-client",
    description: "routerd DHCPv4 client on %i",
    templated: true,
    args: ["--instance", "%i", "--interface", INTERFACE, "--state-dir", PATHS.stateDir, "--run-dir", PATHS.runDir],
    // BIND_SERVICE: UDP port 68. NET_RAW/NET_ADMIN: binding to one interface, ARP probes.
    capabilities: ["CAP_NET_BIND_SERVICE", "CAP_NET_RAW", "CAP_NET_ADMIN"],
    writable: [],
    writesKernelTunables: false,
    addressFamilies: [...INET, "AF_PACKET"],
  },
  {
    daemon: "dhcpv6-client",
    program: "routerd-dhcpv6-client",
    description: "routerd DHCPv6 client (prefix delegation) on %i",
    templated: true,
    args: ["--instance", "%i", "--interface", INTERFACE, "--state-dir", PATHS.stateDir, "--run-dir", PATHS.runDir],
    capabilities: ["CAP_NET_BIND_SERVICE", "CAP_NET_RAW", "CAP_NET_ADMIN"],
    writable: [],
    writesKernelTunables: false,
    addressFamilies: INET,
  },
  {
    daemon: "bgp",
    program: "routerd-bgp",
    description: "routerd BGP router %i (gobgpd and the kernel FIB)",
    templated: true,
    args: ["--instance", "%i", "--config", `${PATHS.stateDir}/bgp/%i/config.json`, "--state-dir", PATHS.stateDir, "--run-dir", PATHS.runDir],
    // BIND_SERVICE: gobgpd listens on TCP 179. NET_ADMIN: FIB routes, TCP MD5 keys. NET_RAW: eBGP multihop TTL.
    capabilities: ["CAP_NET_BIND_SERVICE", "CAP_NET_ADMIN", "CAP_NET_RAW"],
    // The route protocol name routerd registers with iproute2.
    writable: ["/etc/iproute2/rt_protos.d"],
    writesKernelTunables: false,
    addressFamilies: INET,
  },
  {
    daemon: "dns-resolver",
    program: "routerd-dns-resolver",
    description: "routerd DNS resolver %i",
    templated: true,
    args: ["--instance", "%i", "--config", `${PATHS.stateDir}/dns-resolver/%i/config.json`, "--state-dir", PATHS.stateDir, "--run-dir", PATHS.runDir],
    // BIND_SERVICE: port 53. NET_RAW: SO_BINDTOIFINDEX for an upstream's sourceInterface.
    capabilities: ["CAP_NET_BIND_SERVICE", "CAP_NET_RAW"],
    // The query log, when enabled, goes under /var/log/routerd by default.
    writable: ["/var/log/routerd"],
    writesKernelTunables: false,
    addressFamilies: INET,
  },
  {
    daemon: "pppoe-client",
    program: "routerd-pppoe-client",
    description: "routerd PPPoE session %i",
    templated: true,
    args: ["--instance", "%i", "--config", `${PATHS.stateDir}/pppoe-client/%i/config.json`, "--state-dir", PATHS.stateDir, "--run-dir", PATHS.runDir],
    // NET_ADMIN/NET_RAW: pppd's PPP unit and PPPoE discovery. SYS_ADMIN: the private mount over /etc/ppp.
    capabilities: ["CAP_NET_ADMIN", "CAP_NET_RAW", "CAP_SYS_ADMIN"],
    // pppd keeps its pid files and pppd2.tdb directly under /run (compiled in).
    writable: ["/run"],
    writesKernelTunables: false,
    addressFamilies: [...INET, "AF_PACKET", "AF_PPPOX"],
  },
];

export function unitName(p: ProgramSpec): string {
  return p.templated ? `${p.program}@.service` : `${p.program}.service`;
}

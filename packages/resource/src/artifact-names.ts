// Stable artifact names. Observers build the same names from what they see on the host, so a desired
// artifact and its observed twin meet by identity.

export const MAIN_TABLE = 254;

export const artifactNames = {
  link: (ifname: string) => ifname,
  ipv4Address: (ifname: string, address: string, prefixLength: number) => `${ifname}/${address}/${prefixLength}`,
  ipv6Address: (ifname: string, address: string, prefixLength: number) => `${ifname}/${address}/${prefixLength}`,
  route: (table: number, destination: string, metric: number) => `table=${table},dst=${destination},metric=${metric}`,
  fwmarkRule: (priority: number, mark: number, table: number) => `priority=${priority},mark=0x${mark.toString(16)},table=${table}`,
  routeTable: (table: number) => String(table),
  nftTable: (family: string, table: string) => `${family}/${table}`,
  nftSet: (family: string, table: string, set: string) => `${family}/${table}/${set}`,
  fileBlock: (path: string, block: string) => `${path}#${block}`,
  daemon: (daemon: string, instance: string) => `${daemon}/${instance}`,
  /** Every route of one protocol in one table (a daemon's FIB routes): owned as one artifact. */
  routeProtocol: (protocol: number, table: number) => `proto=${protocol},table=${table}`,
  /** A VXLAN flood entry: all-zeros MAC towards one remote tunnel endpoint. */
  fdb: (ifname: string, dst: string) => `${ifname}/dst=${dst}`,
  /** A FOU or GUE receive port (`ip fou add port P ...`). */
  fou: (port: number) => `port=${port}`,
  wireguardPeer: (ifname: string, publicKey: string) => `${ifname}/${publicKey}`,
  /** An OS package by its package manager, e.g. `apt/chrony`. */
  package: (manager: string, name: string) => `${manager}/${name}`,
  /** A kernel module by the name /proc/modules shows (underscores, never dashes). */
  kernelModule: (module: string) => module.replace(/-/g, "_"),
  /** A systemd unit file routerd generates (routerd-*.service), by its unit name. */
  unit: (unit: string) => unit,
  /** A FreeBSD rc.d script routerd generates (routerd_*), by its script name. */
  rcScript: (script: string) => script,
  /** A whole drop-in file routerd writes for a host service (networkd, resolved): its path. */
  dropin: (path: string) => path,
};

/** Where routerd may write whole drop-in files: only files named routerd in these directories. */
export const ROUTERD_DROPIN = /^\/etc\/systemd\/(network\/00-routerd-[A-Za-z0-9_.@-]+\.network|resolved\.conf\.d\/routerd-[A-Za-z0-9_.-]+\.conf)$/;

export function isRouterdDropin(path: string): boolean {
  return ROUTERD_DROPIN.test(path);
}

export function parseRouteProtocolName(name: string): { protocol: number; table: number } | undefined {
  const m = /^proto=(\d+),table=(\d+)$/.exec(name);
  return m ? { protocol: Number(m[1]), table: Number(m[2]) } : undefined;
}

/**
 * Route protocol numbers routerd's daemons write routes with, registered with iproute2 by a file of
 * routerd's own (so `ip route` prints the name). Outside every number FRR, bird and the kernel use.
 */
export const ROUTERD_ROUTE_PROTOCOLS: Readonly<Record<number, string>> = { 219: "routerd-bgp" };
export const RT_PROTOS_PATH = "/etc/iproute2/rt_protos.d/routerd.conf";

export function rtProtosContent(): string {
  const lines = Object.entries(ROUTERD_ROUTE_PROTOCOLS).map(([n, name]) => `${n}\t${name}`);
  return `# Written by routerd: the route protocols of the routes its daemons install. Do not edit.\n${lines.join("\n")}\n`;
}

export function parseRouteName(name: string): { table: number; destination: string; metric: number } | undefined {
  const m = /^table=(\d+),dst=([^,]+),metric=(\d+)$/.exec(name);
  return m ? { table: Number(m[1]), destination: m[2]!, metric: Number(m[3]) } : undefined;
}

export function parseFwmarkRuleName(name: string): { priority: number; mark: number; table: number } | undefined {
  const m = /^priority=(\d+),mark=(0x[0-9a-f]+),table=(\d+)$/.exec(name);
  return m ? { priority: Number(m[1]), mark: Number(m[2]), table: Number(m[3]) } : undefined;
}

export function parseFileBlockName(name: string): { path: string; block: string } | undefined {
  const i = name.lastIndexOf("#");
  return i > 0 ? { path: name.slice(0, i), block: name.slice(i + 1) } : undefined;
}

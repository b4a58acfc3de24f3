// The link types routerd creates (VRF, VXLAN, IP tunnels): how `ip link add` makes each, and what
// `ip -d -j link` reports of it, in one shape (`linkData`) so desired and observed compare key by key.
// Pure. A link routerd creates carries `linkType` and `linkData` in its linux.link attributes.

export type LinkData = Record<string, string | number | boolean>;

interface LinkType {
  /** `ip link add <ifname> type <type> <args>`. */
  args(data: LinkData): string[];
  /** What the kernel reports, reduced to the keys routerd sets. */
  observed(info: Record<string, unknown>): LinkData;
}

const str = (v: unknown): string | undefined => (typeof v === "string" && v !== "any" ? v : undefined);
const num = (v: unknown): number | undefined => (typeof v === "number" ? v : undefined);
const opt = (key: string, v: string | number | boolean | undefined): string[] => (v === undefined ? [] : [key, String(v)]);
const defined = (o: Record<string, string | number | boolean | undefined>): LinkData =>
  Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as LinkData;

/** A GRE key as ip shows it (dotted quad) back to a number. */
function keyNumber(v: unknown): number | undefined {
  if (typeof v !== "string" || !/^\d+\.\d+\.\d+\.\d+$/.test(v)) return num(v);
  const n = v.split(".").reduce((acc, o) => acc * 256 + Number(o), 0);
  return n === 0 ? undefined : n;
}

/** FOU/GUE encapsulation of an ipip or gre tunnel ("auto" source port is 0 in the kernel). */
function encapArgs(d: LinkData): string[] {
  if (d.encap === undefined) return [];
  return ["encap", String(d.encap), "encap-sport", String(d.encapSport ?? "auto"), "encap-dport", String(d.encapDport)];
}

function encapObserved(info: Record<string, unknown>): LinkData {
  const e = info.encap as { type?: string; sport?: number; dport?: number } | undefined;
  if (!e?.type || e.type === "none") return {};
  return defined({ encap: e.type, encapSport: e.sport ? e.sport : "auto", encapDport: e.dport });
}

const IP_TUNNEL: Pick<LinkType, "observed"> = {
  observed: (i) =>
    defined({ local: str(i.local), remote: str(i.remote), ttl: num(i.ttl) || undefined, dev: str(i.link), pmtudisc: typeof i.pmtudisc === "boolean" ? i.pmtudisc : undefined, ...encapObserved(i) }),
};

/** ttl 0 inherits from the inner packet, which needs path MTU discovery off; "nopmtudisc" lets IPv4 fragment. */
const tunnelOptions = (d: LinkData): string[] => [...opt("ttl", d.ttl as number), ...(d.pmtudisc === false ? ["nopmtudisc"] : [])];

export const LINK_TYPES: Record<string, LinkType> = {
  vrf: {
    args: (d) => ["table", String(d.table)],
    observed: (i) => defined({ table: num(i.table) }),
  },
  vxlan: {
    args: (d) => ["id", String(d.vni), ...opt("local", d.local as string), ...opt("dev", d.dev as string), "dstport", String(d.port), d.learning ? "learning" : "nolearning", ...opt("df", d.df as string)],
    observed: (i) =>
      defined({ vni: num(i.id), local: str(i.local) ?? str(i.local6), dev: str(i.link), port: num(i.port), learning: typeof i.learning === "boolean" ? i.learning : undefined, df: str(i.df) }),
  },
  ipip: {
    args: (d) => [...opt("local", d.local as string), "remote", String(d.remote), ...tunnelOptions(d), ...opt("dev", d.dev as string), ...encapArgs(d)],
    ...IP_TUNNEL,
  },
  gre: {
    args: (d) => [...opt("local", d.local as string), "remote", String(d.remote), ...tunnelOptions(d), ...opt("key", d.key as number), ...opt("dev", d.dev as string), ...encapArgs(d)],
    observed: (i) => defined({ ...IP_TUNNEL.observed(i), key: keyNumber(i.ikey) }),
  },
  // DS-Lite: IPv4 in IPv6 (RFC 6333). "none" leaves out the encapsulation limit option, as most AFTRs expect.
  ip6tnl: {
    args: (d) => ["mode", String(d.mode), ...opt("local", d.local as string), "remote", String(d.remote), ...opt("dev", d.dev as string), "encaplimit", String(d.encapLimit ?? "none")],
    observed: (i) =>
      defined({
        mode: i.proto === "ipip6" ? "ip4ip6" : str(i.proto),
        local: str(i.local),
        remote: str(i.remote),
        dev: str(i.link),
        encapLimit: i.ip6_tnl_f_ign_encap_limit ? "none" : num(i.encap_limit),
      }),
  },
};

export function linkTypeOf(type: string): LinkType | undefined {
  return Object.hasOwn(LINK_TYPES, type) ? LINK_TYPES[type] : undefined;
}

/** `ip link add` for a link routerd creates. */
export function linkAddLine(ifname: string, type: string, data: LinkData): string {
  const t = linkTypeOf(type);
  if (!t) throw new Error(`routerd does not create links of type ${type}`);
  return ["link", "add", ifname, "type", type, ...t.args(data)].join(" ");
}

/** The link's own type and parameters differ from what is wanted: it has to be made again. */
export function linkNeedsRecreate(desired: { linkType?: unknown; linkData?: unknown }, observed: { linkType?: unknown; linkData?: unknown }): boolean {
  if (desired.linkType === undefined) return false;
  if (desired.linkType !== observed.linkType) return true;
  const want = (desired.linkData ?? {}) as LinkData;
  const have = (observed.linkData ?? {}) as LinkData;
  return Object.keys(want).some((k) => want[k] !== have[k]);
}

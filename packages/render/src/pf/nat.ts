// FreeBSD pf.conf fragment for PortForward and IngressService: `rdr pass` (translation and pass in one
// rule), optional NAT reflection (`rdr` on the reflecting interfaces, tagged, plus a `nat` of exactly the
// tagged packets back out of that interface), and `block` rules for services with no healthy backend.
//
// pf cannot spread a redirection over a list of addresses at random or by hash of the source: for a list it
// allows only round-robin. So `random` renders as round-robin and `sourceHash` as round-robin with
// sticky-address (a client keeps its backend while pf tracks its source). Backends of one pool share one
// port in pf; when active backends differ in port, only those with the first one's port are used.
// Translation rules come before filter rules in pf.conf; the two parts are returned apart.
import type { ConfigView, IPAddressSetSpec, IngressServiceSpec, IngressTarget, PortForwardSpec, Resource } from "@routerd/api";
import { hairpinInterfaces, hairpinOf } from "@routerd/api";
import { ingressState, type IngressSelection } from "../nft/ingress.js";

export interface PfNat {
  tables: string[];
  translation: string[];
  filter: string[];
}

const list = (items: readonly string[]) => (items.length === 1 ? items[0]! : `{ ${items.join(", ")} }`);
/** pf tags and table names: letters, digits and '_' are safe everywhere. */
const ident = (s: string) => s.replace(/[^A-Za-z0-9_]/g, "_");
const pfPort = (p: number | string) => String(p).replace("-", ":");

function tableName(set: string): string {
  return `<rd_${ident(set)}>`;
}

/** `from` part: any, a list of prefixes, or an IPAddressSet table; one alternative per rule. */
function sources(cidrs: readonly string[], set: string | undefined): string[] {
  const out: string[] = [];
  if (cidrs.length) out.push(`from ${list([...cidrs].sort())}`);
  if (set) out.push(`from ${tableName(set)}`);
  return out.length ? out : ["from any"];
}

interface Forward {
  owner: string;
  ifnames: string[];
  reflect: string[];
  protocol: string;
  listenAddress: string | undefined;
  listenPort: number | string;
  from: string[];
  /** Redirect targets sharing one port (undefined: keep the original port). */
  targets: string[];
  targetPort: number | undefined;
  pool: string;
}

/** Without a listen address the uplink forwards the port for any destination; reflection only the router's own. */
function redirect(f: Forward, ifnames: readonly string[], tag: string | undefined): string[] {
  const to = `to ${f.listenAddress ?? (tag ? "(self)" : "any")} port ${pfPort(f.listenPort)}`;
  const port = f.targetPort !== undefined ? ` port ${f.targetPort}` : "";
  const pool = f.pool ? ` ${f.pool}` : "";
  return f.from.map((from) => `rdr pass on ${list(ifnames)} inet proto ${f.protocol} ${from} ${to}${tag ? ` tag ${tag}` : ""} -> ${list(f.targets)}${port}${pool}`);
}

const TAG_PREFIX: Record<string, string> = { PortForward: "RD_PF_", IngressService: "RD_IS_" };

function translate(f: Forward): string[] {
  // An interface that reflects gets only the reflection rule (a VIP on the LAN, say).
  const plain = f.ifnames.filter((i) => !f.reflect.includes(i));
  const out = plain.length ? [`# ${f.owner}`, ...redirect(f, plain, undefined)] : [];
  if (!f.reflect.length) return out;
  // Reflection: clients on these interfaces reach the backend through the router; the tag marks exactly the
  // redirected packets, so only they are NATed to the router's address on the way back out.
  const [kind, name] = f.owner.split("/") as [string, string];
  const tag = `${TAG_PREFIX[kind]}${ident(name)}`.slice(0, 63);
  out.push(`# ${f.owner} NAT reflection`, ...redirect(f, f.reflect, tag));
  for (const ifname of f.reflect) out.push(`nat on ${ifname} inet proto ${f.protocol} from any to ${list(f.targets)} tagged ${tag} -> (${ifname})`);
  return out;
}

function portForward(r: Resource<PortForwardSpec>, view: ConfigView): Forward | undefined {
  const s = r.spec;
  if (!s.target.address) return undefined; // a target from status not known yet: the resource is pending
  const wan = view.ifname(s.listen.interface);
  // Without named interfaces, hairpin reflects on every other interface of the config.
  const hairpin = hairpinOf(s);
  const reflect = !hairpin.on ? [] : hairpin.interfaces?.length ? hairpin.interfaces : view.all("Interface").map((i) => i.metadata.name).filter((n) => n !== s.listen.interface);
  return {
    owner: `PortForward/${r.metadata.name}`,
    ifnames: [wan],
    reflect: reflect.map((i) => view.ifname(i)).sort(),
    protocol: s.listen.protocol,
    listenAddress: s.listen.address,
    listenPort: s.listen.port,
    from: sources(s.sourceCIDRs, s.sourceSet),
    targets: [s.target.address],
    targetPort: s.target.port ?? (typeof s.listen.port === "number" ? s.listen.port : undefined),
    pool: "",
  };
}

const POOLS: Record<string, string> = { failover: "", random: "round-robin", sourceHash: "round-robin sticky-address" };

function ingressService(r: Resource<IngressServiceSpec>, view: ConfigView, active: readonly IngressTarget[]): Forward {
  const s = r.spec;
  const port = active[0]!.port;
  const pool = active.filter((t) => t.port === port);
  return {
    owner: `IngressService/${r.metadata.name}`,
    ifnames: [view.ifname(s.listen.interface)],
    reflect: hairpinInterfaces(s, view).map((i) => view.ifname(i)),
    protocol: s.listen.protocol,
    listenAddress: s.listen.address,
    listenPort: s.listen.port,
    from: ["from any"],
    targets: pool.map((t) => t.address),
    targetPort: port,
    pool: pool.length > 1 ? POOLS[s.policy.selection]! : "",
  };
}

function unserved(r: Resource<IngressServiceSpec>, view: ConfigView): string[] {
  const s = r.spec;
  const ifnames = [s.listen.interface, ...hairpinInterfaces(s, view)].map((i) => view.ifname(i));
  const how = s.policy.onNoHealthyBackends === "reject" ? "block return" : "block drop";
  return [`# IngressService/${r.metadata.name}: no healthy backend`, `${how} in quick on ${list([...new Set(ifnames)])} inet proto ${s.listen.protocol} from any to ${s.listen.address ?? "any"} port ${s.listen.port}`];
}

export function renderPfNat(view: ConfigView, ingress: IngressSelection = new Map()): PfNat {
  const translation: string[] = [];
  const filter: string[] = [];
  const forwards = view.all<PortForwardSpec>("PortForward");
  for (const r of forwards) {
    const forward = portForward(r, view);
    if (forward) translation.push(...translate(forward));
  }
  for (const r of view.all<IngressServiceSpec>("IngressService")) {
    const { active } = ingressState(r, ingress);
    if (active.length) translation.push(...translate(ingressService(r, view, active)));
    else filter.push(...unserved(r, view));
  }
  const sets = [...new Set(forwards.map((f) => f.spec.sourceSet).filter((n): n is string => Boolean(n)))].sort();
  const tables = sets.map((n) => `table ${tableName(n)} const { ${[...(view.find<IPAddressSetSpec>("IPAddressSet", n)?.spec.addresses ?? [])].sort().join(", ")} }`);
  return { tables, translation, filter };
}

/** The fragment as text: tables, then translation, then filter rules (pf.conf's required order). */
export function pfNatText(pf: PfNat): string {
  const parts = [
    "# Generated by routerd: PortForward and IngressService. DO NOT EDIT.",
    ...pf.tables,
    ...pf.translation,
    ...pf.filter,
  ];
  return `${parts.join("\n")}\n`;
}

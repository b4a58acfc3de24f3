// What the four DNS kinds share: the daemon they configure (one routerd-dns-resolver per DNSResolver),
// references written as `Kind/name` (the original's form for upstreams and zones), DNS name fields, and
// which resolvers a zone or an upstream belongs to.
import { isIP } from "node:net";
import { artifactNames, type ArtifactIntent, type OwnerKey } from "@routerd/resource";
import type { ConfigView } from "../kind.js";
import { NAME_PATTERN, Schema, type JsonSchema, type ParseContext, type Path, t } from "../schema.js";

/** routerd-dns-resolver runs once per DNSResolver; the instance is the resolver's name. */
export const DNS_RESOLVER_DAEMON = "dns-resolver";

/** A reference to a resource of one kind, written `Kind/name` (the original's form) or just `name`. */
class KindRefSchema extends Schema<string> {
  constructor(readonly kind: string) {
    super();
  }
  parse(value: unknown, path: Path, ctx: ParseContext): string | undefined {
    const prefix = `${this.kind}/`;
    const bare = typeof value === "string" && value.startsWith(prefix) ? value.slice(prefix.length) : value;
    if (typeof bare !== "string" || !NAME_PATTERN.test(bare)) {
      ctx.issues.push({ path: [...path], message: `${JSON.stringify(value)} is not ${this.kind}/<name>`, hint: `write ${prefix}<name>, e.g. ${prefix}isp` });
      return undefined;
    }
    ctx.refs.push({ path: [...path], name: bare, kinds: [this.kind] });
    return bare;
  }
  jsonSchema(): JsonSchema {
    const s: JsonSchema = { type: "string", pattern: `^(${this.kind}/)?${NAME_PATTERN.source.slice(1, -1)}$` };
    return this.description ? { description: this.description, ...s } : s;
  }
}

export const kindRef = (kind: string): Schema<string> => new KindRefSchema(kind);

const DNS_NAME = /^(\.|(?=.{1,254}$)([A-Za-z0-9_*]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)(\.[A-Za-z0-9_]([A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?)*\.?)$/;

/** A domain name: labels of letters, digits, '-', '_'; a trailing dot is allowed; "." is the root. */
export const dnsName = () => t.string({ pattern: DNS_NAME, patternHint: "a domain name like lan or example.com." });

/** An address or network, IPv4 or IPv6: 192.168.1.0/24, fd00::/64, 127.0.0.1. */
export const ipNetwork = () =>
  t.string({
    check: (v) => {
      const [addr = "", len, extra] = v.split("/");
      const family = isIP(addr);
      const max = family === 4 ? 32 : 128;
      const n = len === undefined ? max : Number(len);
      return family !== 0 && extra === undefined && (len === undefined || /^\d{1,3}$/.test(len)) && n <= max ? undefined : `${JSON.stringify(v)} is not an address or network like 192.168.1.0/24 or fd00::/64`;
    },
  });

/** "lan" → "lan.", "." stays. */
export function fqdn(name: string): string {
  return name.endsWith(".") ? name : `${name}.`;
}

export function resolverDaemonIntent(owner: OwnerKey, resolver: string): ArtifactIntent {
  return {
    kind: "routerd.daemon",
    name: artifactNames.daemon(DNS_RESOLVER_DAEMON, resolver),
    owner,
    action: "ensure",
    applyWith: "supervisor",
    attributes: { daemon: DNS_RESOLVER_DAEMON, instance: resolver },
  };
}

interface ForwarderLike {
  resolver: string;
  upstreams: string[];
  zoneRefs: string[];
}

/** The resolvers whose forwarders name this upstream. */
export function resolversOfUpstream(view: ConfigView, upstream: string): string[] {
  const out = new Set<string>();
  for (const f of view.all<ForwarderLike>("DNSForwarder")) if (f.spec.upstreams.includes(upstream)) out.add(f.spec.resolver);
  return [...out].sort();
}

/**
 * The resolvers serving a zone: those whose forwarders name it in zoneRefs; a zone no forwarder names is
 * served by every resolver (the common one-resolver router).
 */
export function resolversOfZone(view: ConfigView, zone: string): string[] {
  const named = new Set<string>();
  for (const f of view.all<ForwarderLike>("DNSForwarder")) if (f.spec.zoneRefs.includes(zone)) named.add(f.spec.resolver);
  if (named.size > 0) return [...named].sort();
  return view.all("DNSResolver").map((r) => r.metadata.name).sort();
}

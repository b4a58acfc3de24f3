// The config file of one routerd-dns-resolver instance (its JSON contract, parsed strictly by the daemon):
// the DNSResolver's listeners and cache, the DNSForwarders naming it, the DNSUpstreams they use, and the
// DNSZones it serves, with DHCP names read from the managed dnsmasq's lease file.
import { join } from "node:path";
import {
  DEFAULT_DNS_SOURCES,
  DNS_DEFAULT_PORTS,
  DNSMASQ,
  durationMs,
  fqdn,
  ipv4Network,
  resolversOfZone,
  staticAddressOf,
  upstreamAddresses,
  zoneRecordName,
  type ConfigView,
  type DHCPv4ServerSpec,
  type DNSForwarderSpec,
  type DNSResolverSpec,
  type DNSUpstreamSpec,
  type DNSZoneSpec,
} from "@routerd/api";

export interface DnsResolverRenderContext {
  view: ConfigView;
  /** The DNSResolver's name. */
  resolver: string;
  stateDir: string;
  /** Prefix for files the daemon writes on routerd's behalf (the query log). */
  root: string;
}

const seconds = (d: string): number => Math.floor(durationMs(d) / 1000);

/** Where the managed dnsmasq keeps its leases (see the dnsmasq renderer's dhcp-leasefile). */
export function dnsmasqLeaseFile(stateDir: string): string {
  return join(stateDir, DNSMASQ.daemon, DNSMASQ.instance, "leases");
}

function zoneConfig(view: ConfigView, name: string, z: DNSZoneSpec, stateDir: string): Record<string, unknown> {
  const records = z.records.flatMap((r) => {
    const fullName = zoneRecordName(z.zone, r.hostname);
    const ttl = r.ttl !== undefined ? { ttl: r.ttl } : {};
    return [
      ...(r.ipv4 !== undefined ? [{ name: fullName, type: "A", data: r.ipv4, ...ttl }] : []),
      ...(r.ipv6 !== undefined ? [{ name: fullName, type: "AAAA", data: r.ipv6, ...ttl }] : []),
      ...(r.cname !== undefined ? [{ name: fullName, type: "CNAME", data: fqdn(r.cname), ...ttl }] : []),
    ];
  });
  const out: Record<string, unknown> = { name, zone: fqdn(z.zone), ttl: z.ttl, records, reverseZones: z.reverseZones.map((r) => fqdn(r.name)) };
  const d = z.dhcpDerived;
  if (d !== undefined) {
    // Only clients of the named servers: their subnets (from the served interface's static address).
    const networks = d.sources.flatMap((src) => {
      const server = view.find<DHCPv4ServerSpec>("DHCPv4Server", src.replace(/^DHCPv4Server\//, ""));
      const own = server && staticAddressOf(view, server.spec.interface);
      return own ? [`${ipv4Network({ address: own.address, length: own.prefixLength })}/${own.prefixLength}`] : [];
    });
    out.dhcp = { leaseFile: d.leaseFile ?? dnsmasqLeaseFile(stateDir), suffix: fqdn(d.hostnameSuffix ?? z.zone), ttl: d.ttl, networks };
  }
  return out;
}

/** Daemon-side names of an upstream's addresses: the resource's name, then name.2, name.3 (no resource name has a dot). */
function addressNames(name: string, u: DNSUpstreamSpec): { name: string; address: string }[] {
  return upstreamAddresses(u).map((address, i) => ({ name: i === 0 ? name : `${name}.${i + 1}`, address }));
}

function upstreamConfig(view: ConfigView, name: string, address: string, u: DNSUpstreamSpec): Record<string, unknown> {
  return {
    name,
    protocol: u.protocol,
    address,
    port: u.port ?? DNS_DEFAULT_PORTS[u.protocol],
    ...(u.path !== undefined ? { path: u.path } : {}),
    ...(u.tlsName !== undefined ? { tlsName: u.tlsName } : {}),
    ...(u.bootstrap.length > 0 ? { bootstrap: u.bootstrap } : {}),
    ...(u.sourceInterface !== undefined ? { sourceInterface: view.ifname(u.sourceInterface) } : {}),
  };
}

export function renderDnsResolverConfig(ctx: DnsResolverRenderContext): Record<string, unknown> {
  const { view, resolver } = ctx;
  const res = view.find<DNSResolverSpec>("DNSResolver", resolver);
  if (res === undefined) throw new Error(`no DNSResolver named ${resolver}`);
  const s = res.spec;
  const forwarders = view.all<DNSForwarderSpec>("DNSForwarder").filter((f) => f.spec.resolver === resolver);
  // An upstream without an address yet (addressFrom waiting for a lease) is left out; its forwarder answers
  // SERVFAIL meanwhile.
  const upstreams = new Map(
    [...new Set(forwarders.flatMap((f) => f.spec.upstreams))].map((n) => {
      const u = view.find<DNSUpstreamSpec>("DNSUpstream", n);
      return [n, u === undefined ? [] : addressNames(n, u.spec).map((a) => ({ ...a, spec: u.spec }))] as const;
    }),
  );
  const zones = view.all<DNSZoneSpec>("DNSZone").filter((z) => resolversOfZone(view, z.metadata.name).includes(resolver));
  return {
    listen: s.listen.map((l, i) => ({ name: l.name ?? `listen-${i}`, addresses: l.addresses, port: l.port, sources: l.sources ?? DEFAULT_DNS_SOURCES })),
    cache: { enabled: s.cache.enabled, maxEntries: s.cache.maxEntries, minTTL: seconds(s.cache.minTTL), maxTTL: seconds(s.cache.maxTTL), negativeTTL: seconds(s.cache.negativeTTL) },
    metrics: { perUpstream: s.metrics.perUpstream },
    queryLog: { enabled: s.queryLog.enabled, path: join(ctx.root, s.queryLog.path ?? `/var/log/routerd/dns-${resolver}.jsonl`) },
    zones: zones.map((z) => zoneConfig(view, z.metadata.name, z.spec, ctx.stateDir)),
    forwarders: forwarders.map((f) => ({
      name: f.metadata.name,
      match: f.spec.match.map(fqdn),
      upstreams: f.spec.upstreams.flatMap((n) => (upstreams.get(n) ?? []).map((a) => a.name)),
      zones: f.spec.zoneRefs,
      dnssecValidate: f.spec.dnssecValidate,
      healthcheck: {
        intervalMs: durationMs(f.spec.healthcheck.interval),
        timeoutMs: durationMs(f.spec.healthcheck.timeout),
        failThreshold: f.spec.healthcheck.failThreshold,
        passThreshold: f.spec.healthcheck.passThreshold,
      },
    })),
    upstreams: [...upstreams.values()].flat().map((a) => upstreamConfig(view, a.name, a.address, a.spec)),
  };
}

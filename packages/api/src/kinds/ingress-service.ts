// IngressService: DNAT of a listen address/port to health-checked backends, with failover, sourceHash or
// random selection. routerd-healthcheck probes every backend; the nat table follows the probe states.
import { isIPv4 } from "node:net";
import { artifactNames } from "@routerd/resource";
import { firstByKey } from "../config-view.js";
import { durationMs, formats, ipv4InPrefix, parseIpv4Prefix } from "../formats.js";
import { API_GROUPS, defineKind, type ConfigView, type Resource } from "../kind.js";
import { t, type Infer } from "../schema.js";
import { fromSource } from "../status-source.js";
import { nftTableIntent } from "../tables.js";
import { HEALTHCHECK_DAEMON } from "./health-check.js";

const BACKEND_NAME = /^[A-Za-z0-9]([A-Za-z0-9._-]{0,61}[A-Za-z0-9])?$/;

export const ingressBackendSpec = t.object({
  name: t.optional(t.string({ pattern: BACKEND_NAME, patternHint: "letters, digits, '.', '_' or '-' (default backend-<index>)" })),
  address: t.optional(t.string({ minLength: 1 }).describe("the backend's IPv4 address")),
  addressFrom: t.optional(fromSource({ format: "ipv4", into: "address" }).describe("the address from another resource's status, e.g. {resource: IPv4StaticAddress/web, field: address}")),
  port: formats.port(),
  weight: t.withDefault(t.int({ min: 0, max: 1000 }).describe("share of new connections (random, sourceHash); 0: only when no weighted backend is healthy"), 1),
});

export const ingressServiceSpec = t.object({
  listen: t.object({
    interface: t.interfaceRef().describe("where the service is reachable (usually the WAN)"),
    address: t.optional(formats.ipv4().describe("only this destination address (default: any on the interface)")),
    addressFrom: t.optional(fromSource({ format: "ipv4", into: "address" }).describe("the listen address from another resource's status, e.g. {resource: DHCPv4Client/wan, field: currentAddress}")),
    protocol: t.enum("tcp", "udp"),
    port: formats.port(),
  }),
  hostname: t.optional(formats.hostname().describe("the service's DNS name, published in status")),
  externalDNS: t.withDefault(t.bool().describe("the hostname's DNS records are managed outside routerd"), false),
  backends: t.array(ingressBackendSpec, { minItems: 1 }),
  healthCheck: t.withDefault(
    t.object({
      protocol: t.withDefault(t.enum("tcp", "http", "https"), "tcp"),
      path: t.optional(t.string({ pattern: /^\/\S*$/, patternHint: "an absolute URL path like /healthz" })),
      host: t.optional(formats.hostname().describe("HTTP Host header and TLS server name")),
      expectedStatus: t.optional(t.array(t.int({ min: 100, max: 599 }), { minItems: 1 }).describe("HTTP statuses counted as healthy (default 200-399)")),
      expectedBody: t.optional(t.string({ minLength: 1, maxLength: 1024 }).describe("text the response body must contain")),
      tlsSkipVerify: t.withDefault(t.bool().describe("https: accept any certificate (default: verify it)"), false),
      interval: t.withDefault(formats.duration(), "5s"),
      timeout: t.withDefault(formats.duration(), "1s"),
      healthyThreshold: t.withDefault(t.int({ min: 1, max: 100 }), 2),
      unhealthyThreshold: t.withDefault(t.int({ min: 1, max: 100 }), 3),
    }),
    { protocol: "tcp", tlsSkipVerify: false, interval: "5s", timeout: "1s", healthyThreshold: 2, unhealthyThreshold: 3 },
  ),
  policy: t.withDefault(
    t.object({
      selection: t.withDefault(t.enum("failover", "sourceHash", "random"), "failover"),
      onNoHealthyBackends: t.withDefault(t.enum("drop", "reject"), "drop"),
    }),
    { selection: "failover", onNoHealthyBackends: "drop" },
  ),
  hairpin: t.withDefault(
    t.object({
      mode: t.optional(t.enum("auto", "manual", "off").describe("auto (default): reflect when listen address and a backend share the listen interface's prefix")),
      enabled: t.optional(t.bool().describe("the original's switch: true means manual, false means off")),
      interfaces: t.withDefault(t.array(t.interfaceRef(), { unique: true }).describe("LAN interfaces whose clients reach the service at its listen address"), []),
    }),
    { interfaces: [] },
  ),
});

export type IngressServiceSpec = Infer<typeof ingressServiceSpec>;

export interface IngressBackend {
  name: string;
  /** Resolved IPv4 address; undefined while it is not known. */
  address: string | undefined;
  port: number;
  weight: number;
}

/** Backends with their default names (`backend-<index>`, as the original names them). */
export function ingressBackends(spec: IngressServiceSpec): IngressBackend[] {
  return spec.backends.map((b, i) => ({ name: b.name ?? `backend-${i}`, address: b.address, port: b.port, weight: b.weight }));
}

/** The routerd-healthcheck probe of one backend. HealthCheck names have no dots, so these never collide. */
export function ingressProbeName(service: string, backend: string): string {
  return `ingress.${service}.${backend}`;
}

export type HairpinMode = "auto" | "manual" | "off";

/** The effective mode: `enabled` is the original's older switch. */
export function hairpinMode(h: IngressServiceSpec["hairpin"]): HairpinMode {
  return h.mode ?? (h.enabled === true ? "manual" : h.enabled === false ? "off" : "auto");
}

/**
 * Interface resources whose clients reach the service at its listen address (NAT reflection). `auto` adds
 * the listen interface itself when the listen address and a backend are on one of its static prefixes
 * (a VIP on the LAN in front of LAN servers); named interfaces count in auto and manual mode.
 */
export function hairpinInterfaces(spec: IngressServiceSpec, view: ConfigView): string[] {
  const mode = hairpinMode(spec.hairpin);
  if (mode === "off" || !spec.listen.address) return [];
  const out = new Set(spec.hairpin.interfaces);
  if (mode === "auto" && sharesListenPrefix(spec, view)) out.add(spec.listen.interface);
  return [...out].sort();
}

function sharesListenPrefix(spec: IngressServiceSpec, view: ConfigView): boolean {
  const listen = spec.listen.address!;
  return view
    .all<{ interface: string; address: string }>("IPv4StaticAddress")
    .filter((a) => a.spec.interface === spec.listen.interface)
    .map((a) => parseIpv4Prefix(a.spec.address)!)
    .some((p) => ipv4InPrefix(listen, p) && spec.backends.some((b) => b.address !== undefined && ipv4InPrefix(b.address, p)));
}

/** What one listen endpoint is: two resources (of this kind or PortForward) may not share it. */
export const ingressListenKey = (l: { interface: string; protocol: string; port: number | string; address?: string | undefined; addressFrom?: { resource: string; field: string } | undefined }) =>
  `${l.interface}|${l.protocol}|${String(l.port)}|${l.address ?? (l.addressFrom ? `${l.addressFrom.resource}.${l.addressFrom.field}` : "")}`;

function checkBackends(res: Resource<IngressServiceSpec>, error: (path: (string | number)[], message: string, hint?: string) => void): void {
  const names = new Map<string, number>();
  ingressBackends(res.spec).forEach((b, i) => {
    const first = names.get(b.name);
    if (first !== undefined) error(["backends", i, "name"], `same name as backends[${first}] (${b.name})`, "give every backend its own name");
    else names.set(b.name, i);
    if (b.address === undefined) {
      if (res.spec.backends[i]!.addressFrom === undefined) error(["backends", i], "needs an address", "write address: <IPv4 address>, or addressFrom: {resource: Kind/name, field: ...}");
    }
    else if (!isIPv4(b.address)) {
      // The original resolved host names at run time; routerd renders addresses and wants them fixed.
      error(["backends", i, "address"], `${JSON.stringify(b.address)} is not an IPv4 address`, "write the backend's IPv4 address, or addressFrom (routerd does not resolve host names for DNAT)");
    }
  });
}

/** The original's "provides" table for IngressService (`phase` is implied). */
export const INGRESS_SERVICE_PROVIDES = {
  hostname: "string",
  listenAddress: "string",
  activeBackend: "object",
  activeBackends: "objectList",
  healthyBackends: "int",
  totalBackends: "int",
  backends: "objectList",
  observedAt: "timestamp",
  dryRun: "bool",
} as const;

/**
 * What an IngressService publishes: the fields its spec decides, and, from routerd serve (`facts`, see
 * apps/routerd/src/core/ingress.ts ingressFacts), the ones health decides (activeBackend(s),
 * healthyBackends, backends with their probe states, observedAt). Like every kind's serve-only fields,
 * those are absent without serve.
 */
export function ingressServiceStatus(res: Resource<IngressServiceSpec>, facts?: Readonly<Record<string, unknown>>): { fields: Record<string, unknown> } {
  const s = res.spec;
  return {
    fields: {
      ...(s.hostname !== undefined ? { hostname: s.hostname } : {}),
      ...(s.listen.address !== undefined ? { listenAddress: s.listen.address } : {}),
      totalBackends: s.backends.length,
      backends: ingressBackends(s).map((b) => ({ name: b.name, ...(b.address ? { address: b.address } : {}), port: b.port, weight: b.weight })),
      dryRun: false,
      ...facts,
    },
  };
}

export const ingressServiceKind = defineKind<IngressServiceSpec>({
  apiVersion: API_GROUPS.firewall,
  kind: "IngressService",
  description: "DNAT of a listen address/port to health-checked backends (failover, sourceHash or random), with NAT reflection.",
  class: "nat",
  contract: { type: "ArtifactKinds", artifactKinds: ["nft.table", "routerd.daemon"] },
  supportsWhen: true,
  spec: ingressServiceSpec,
  provides: INGRESS_SERVICE_PROVIDES,
  // The spec's fields; which backends are healthy and active comes from routerd serve's probes (facts).
  status: (res, _ctx, facts) => ingressServiceStatus(res, facts),
  check(res, ctx) {
    const s = res.spec;
    checkBackends(res, (p, m, h) => ctx.error(p, m, h));
    const hc = s.healthCheck;
    const http = hc.protocol !== "tcp";
    for (const field of ["path", "host", "expectedStatus", "expectedBody"] as const) {
      if (hc[field] !== undefined && !http) ctx.error(["healthCheck", field], "only applies to http and https health checks", "set healthCheck.protocol: http or https");
    }
    if (hc.tlsSkipVerify && hc.protocol !== "https") ctx.error(["healthCheck", "tlsSkipVerify"], "only applies to https health checks");
    if (durationMs(hc.timeout) >= durationMs(hc.interval)) ctx.error(["healthCheck", "timeout"], `must be shorter than interval (${hc.interval})`);
    if (durationMs(hc.interval) < 100) ctx.error(["healthCheck", "interval"], "must be at least 100ms");

    const h = s.hairpin;
    if (h.mode !== undefined && h.enabled !== undefined && (h.enabled !== (h.mode !== "off"))) {
      ctx.error(["hairpin", "enabled"], `contradicts mode: ${h.mode}`, "remove enabled; mode says it");
    }
    const mode = hairpinMode(h);
    if (mode === "manual" && h.interfaces.length === 0) ctx.error(["hairpin", "interfaces"], "manual hairpin needs the interfaces whose clients use the listen address", "add interfaces: [lan], or use mode: auto");
    if (mode === "off" && h.interfaces.length > 0) ctx.error(["hairpin", "interfaces"], "hairpin is off; these interfaces would be ignored", "remove them, or set mode: manual");
    if (h.interfaces.length > 0 && !s.listen.address && !s.listen.addressFrom) {
      ctx.error(["hairpin"], "NAT reflection needs listen.address: LAN clients are matched by the address they connect to", "set listen.address to the address clients use");
    }

    const key = ingressListenKey(s.listen);
    for (const kind of ["PortForward", "IngressService"]) {
      const first = firstByKey<{ listen: IngressServiceSpec["listen"] }>(ctx, kind, (r) => ingressListenKey(r.spec.listen)).get(key);
      if (first && first !== res && (kind === "PortForward" || first.index < res.index)) {
        ctx.error(["listen", "port"], `${s.listen.protocol} port ${s.listen.port} on ${s.listen.interface} is already forwarded by ${kind}/${first.metadata.name}`);
      }
    }
  },
  intents: (res) => [
    nftTableIntent("nat", res.owner),
    // The filter table answers for the service when no backend is healthy (drop or reject) and lets
    // DNATed connections through a forward policy of drop.
    nftTableIntent("filter", res.owner),
    {
      kind: "routerd.daemon",
      name: artifactNames.daemon(HEALTHCHECK_DAEMON.daemon, HEALTHCHECK_DAEMON.instance),
      owner: res.owner,
      action: "ensure",
      applyWith: "supervisor",
      attributes: { ...HEALTHCHECK_DAEMON },
    },
  ],
});

/** A backend ready to be rendered: its address is known. */
export interface IngressTarget {
  name: string;
  address: string;
  port: number;
  weight: number;
}

/** Backends whose weight counts: the weighted ones, or all of them when none is weighted. */
export function weightedShare(targets: readonly IngressTarget[]): number[] {
  const weighted = targets.some((t) => t.weight > 0);
  return targets.map((t) => (weighted ? t.weight : 1));
}

/**
 * The backends that take new connections, given the usable ones (healthy, config order): failover takes the
 * first usable weighted backend (weight 0 ones are backups), random and sourceHash all usable backends
 * that have a share.
 */
export function activeIngressTargets(selection: IngressServiceSpec["policy"]["selection"], usable: readonly IngressTarget[]): IngressTarget[] {
  const share = weightedShare(usable);
  const sharing = usable.filter((_t, i) => share[i]! > 0);
  return selection === "failover" ? sharing.slice(0, 1) : sharing;
}

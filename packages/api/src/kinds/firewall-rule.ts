import { formats } from "../formats.js";
import { API_GROUPS, defineKind } from "../kind.js";
import { t, type Infer } from "../schema.js";
import { nftTableIntent } from "../tables.js";

/** A port or range as the original writes them in lists: "80", "8000-8080" (numbers are taken too). */
const portText = t.union<number | string>(
  "a port or a range like \"8000-8080\"",
  formats.port(),
  t.string({
    pattern: /^\d{1,5}(-\d{1,5})?$/,
    check: (v) => {
      const [a, b = a] = v.split("-").map(Number) as [number, number?];
      return a >= 1 && b! <= 65535 && a <= b! ? undefined : `${v} is not a valid port or ascending range`;
    },
  }),
);

const ICMP_TYPE = /^[a-z][a-z0-9-]*$/;

export const firewallRuleSpec = t.object(
  {
    fromZone: t.ref("FirewallZone"),
    toZone: t.union<string>("\"self\" (the router) or a FirewallZone name", t.string({ pattern: /^self$/ }), t.ref("FirewallZone")),
    protocol: t.withDefault(t.enum("any", "tcp", "udp", "icmp", "icmpv6", "ipv6-icmp", "ipip"), "any"),
    port: t.optional(formats.portOrRange()),
    destinationPorts: t.withDefault(t.array(portText, { unique: true }).describe("destination ports and ranges (any of them)"), []),
    sourcePorts: t.withDefault(t.array(portText, { unique: true }).describe("source ports and ranges (any of them)"), []),
    icmpType: t.optional(t.string({ pattern: ICMP_TYPE, patternHint: "an nftables ICMP type like echo-request" }).describe("with protocol icmp")),
    icmpv6Type: t.optional(t.string({ pattern: ICMP_TYPE, patternHint: "an nftables ICMPv6 type like echo-request" }).describe("with protocol icmpv6")),
    sourceCIDRs: t.withDefault(t.array(formats.ipv4Cidr(), { unique: true }), []),
    sourceSet: t.optional(t.ref("IPAddressSet")),
    destinationCIDRs: t.withDefault(t.array(formats.ipv4Cidr(), { unique: true }), []),
    destinationSetRefs: t.withDefault(t.array(t.ref("IPAddressSet"), { unique: true }), []),
    excludeDestinationSetRefs: t.withDefault(t.array(t.ref("IPAddressSet"), { unique: true }), []),
    action: t.enum("accept", "drop", "reject"),
    log: t.withDefault(t.bool(), false),
    rateLimit: t.optional(
      t.object({
        rate: t.optional(t.int({ min: 1 })),
        packetsPerSecond: t.optional(t.int({ min: 1 }).describe("shorthand for rate with per: second, unit: packet")),
        per: t.withDefault(t.enum("second", "minute"), "second"),
        unit: t.withDefault(t.enum("packet", "byte", "kilobyte", "megabyte"), "packet"),
        burst: t.optional(t.int({ min: 1 })),
        log: t.withDefault(t.bool().describe("log what goes over the limit"), false),
      }).describe("accept: up to the rate (the rest falls through); drop/reject: only what goes over it"),
    ),
    connLimit: t.optional(
      t.object({
        maxPerSource: t.int({ min: 1 }).describe("connections one IPv4 source may have open"),
        log: t.withDefault(t.bool().describe("log connections refused for the limit"), false),
      }).describe("accept: new connections beyond the limit are dropped; drop/reject: applies only beyond it"),
    ),
  },
  { aliases: { srcCIDRs: "sourceCIDRs" } },
);

export type FirewallRuleSpec = Infer<typeof firewallRuleSpec>;

export const firewallRuleKind = defineKind<FirewallRuleSpec>({
  apiVersion: API_GROUPS.firewall,
  kind: "FirewallRule",
  description: "Accept, drop or reject traffic from one zone to another zone or to the router itself.",
  class: "firewall",
  contract: { type: "ArtifactKinds", artifactKinds: ["nft.table"] },
  supportsWhen: true,
  spec: firewallRuleSpec,
  status: (res) => ({ fields: { action: res.spec.action } }),
  provides: { action: "string" },
  check(res, ctx) {
    const s = res.spec;
    const ported = s.protocol === "tcp" || s.protocol === "udp";
    if (s.port !== undefined && !ported) ctx.error(["port"], `a port needs protocol tcp or udp (protocol is ${s.protocol})`);
    if (s.destinationPorts.length && !ported) ctx.error(["destinationPorts"], `ports need protocol tcp or udp (protocol is ${s.protocol})`);
    if (s.sourcePorts.length && !ported) ctx.error(["sourcePorts"], `ports need protocol tcp or udp (protocol is ${s.protocol})`);
    if (s.port !== undefined && s.destinationPorts.length) ctx.error(["port"], "destinationPorts is set too", "keep one of port and destinationPorts");
    if (s.icmpType !== undefined && s.protocol !== "icmp") ctx.error(["icmpType"], "needs protocol icmp");
    if (s.icmpv6Type !== undefined && s.protocol !== "icmpv6" && s.protocol !== "ipv6-icmp") ctx.error(["icmpv6Type"], "needs protocol icmpv6");
    const r = s.rateLimit;
    if (r && (r.rate === undefined) === (r.packetsPerSecond === undefined)) ctx.error(["rateLimit"], "needs rate or packetsPerSecond (one of them)");
    if (r?.packetsPerSecond !== undefined && (r.per !== "second" || r.unit !== "packet")) ctx.error(["rateLimit", "packetsPerSecond"], "means per: second, unit: packet", "use rate with per and unit instead");
    if (r && r.unit !== "packet" && r.burst !== undefined) ctx.error(["rateLimit", "burst"], "a byte rate takes no packet burst");
  },
  intents: (res) => [nftTableIntent("filter", res.owner)],
});

// PPPoESession: a PPPoE uplink run by routerd-pppoe-client (pppd with the rp-pppoe plugin). While the session
// is up, routerd applies what it brings as artifacts it owns: the default route through the session's
// interface (defaultRoute) and the peer's DNS servers (usePeerDNS); pppd itself sets only the addresses of
// the PPP link, which vanish with it. Field names follow the original API.
import { artifactNames, type ArtifactIntent } from "@routerd/resource";
import { formats } from "../formats.js";
import { API_GROUPS, defineKind, type ConfigView, type Resource } from "../kind.js";
import type { PppoeSession, RuntimeFact } from "../runtime.js";
import { t, type Infer } from "../schema.js";
import { RESOLV_CONF } from "./dhcpv4-client.js";

export const PPPOE_CLIENT_DAEMON = "pppoe-client";
/** pppd's defaultroute metric: a PPPoE uplink is the main one unless an EgressRoutePolicy says otherwise. */
export const PPPOE_ROUTE_METRIC = 0;
const DEFAULT_LCP_ECHO_INTERVAL = 10;
const DEFAULT_LCP_ECHO_FAILURE = 3;

const printable = (max: number) => t.string({ minLength: 1, maxLength: max, pattern: /^[^\u0000-\u001f\u007f]+$/, patternHint: "printable characters (pppd's files cannot hold control characters)" });

export const pppoeSessionSpec = t.object({
  interface: t.interfaceRef().describe("the Ethernet interface PPPoE runs on"),
  ifname: t.withDefault(formats.ifname().describe("the PPP interface pppd creates; other resources route and NAT through it"), "ppp0"),
  username: printable(255).describe("the PPP user name the ISP gave you"),
  password: t.optional(printable(255).describe("the password, in the config (prefer passwordFile)")),
  passwordFile: t.optional(t.string({ pattern: /^\//, patternHint: "an absolute path" }).describe("a file whose first line is the password; read before every dial")),
  secretEncoding: t.withDefault(t.enum("plain").describe("how password is written (plain only)"), "plain"),
  authMethod: t.withDefault(t.enum("chap", "pap", "both").describe("what the client accepts when the ISP asks to authenticate"), "both"),
  mtu: t.optional(t.int({ min: 576, max: 1500 }).describe("MTU of the PPP link (PPPoE over Ethernet: at most 1492 unless the path takes RFC 4638 frames)")),
  mru: t.optional(t.int({ min: 576, max: 1500 }).describe("MRU asked of the peer")),
  defaultRoute: t.withDefault(t.bool().describe(`install the default route through the session while it is up (metric ${PPPOE_ROUTE_METRIC})`), false),
  usePeerDNS: t.withDefault(t.bool().describe(`put the DNS servers the ISP offers in a routerd block of ${RESOLV_CONF}`), false),
  ipv6: t.withDefault(t.bool().describe("negotiate IPv6 (IPV6CP) too; prefixes then come from DHCPv6PrefixDelegation on the session"), false),
  lcpEchoInterval: t.optional(t.int({ min: 0, max: 3600 }).describe(`seconds between LCP echo requests (default ${DEFAULT_LCP_ECHO_INTERVAL}; 0 turns dead-peer detection off)`)),
  lcpEchoFailure: t.optional(t.int({ min: 0, max: 1000 }).describe(`unanswered echoes before the peer counts as dead (default ${DEFAULT_LCP_ECHO_FAILURE})`)),
  lcpInterval: t.optional(t.int({ min: 0, max: 3600 }).describe("older name of lcpEchoInterval")),
  lcpFailure: t.optional(t.int({ min: 0, max: 1000 }).describe("older name of lcpEchoFailure")),
  persist: t.withDefault(t.bool().describe("redial when the session or an attempt ends (with back-off)"), true),
  acName: t.optional(printable(255).describe("only the access concentrator with this name")),
  serviceName: t.optional(printable(255).describe("the PPPoE service name to ask for")),
  enabled: t.withDefault(t.bool().describe("false: no session is started (the daemon is stopped)"), true),
  managed: t.withDefault(t.bool().describe("routerd runs the session (routerd-pppoe-client); only true is supported"), true),
});

export type PPPoESessionSpec = Infer<typeof pppoeSessionSpec>;

/** LCP echo settings with the older field names folded in. */
export function lcpEcho(spec: PPPoESessionSpec): { interval: number; failure: number } {
  return {
    interval: spec.lcpEchoInterval ?? spec.lcpInterval ?? DEFAULT_LCP_ECHO_INTERVAL,
    failure: spec.lcpEchoFailure ?? spec.lcpFailure ?? DEFAULT_LCP_ECHO_FAILURE,
  };
}

/** What routerd-pppoe-client holds for the session now. */
export function sessionFact(view: ConfigView, name: string): RuntimeFact<PppoeSession> {
  return view.runtime.pppoeSession(name);
}

/** The daemon's config file (see apps/routerd-pppoe-client/src/config.ts for its contract). */
export function pppoeClientConfig(res: Resource<PPPoESessionSpec>, view: ConfigView): Record<string, unknown> {
  const s = res.spec;
  const echo = lcpEcho(s);
  return {
    interface: view.ifname(s.interface),
    ifname: s.ifname,
    username: s.username,
    ...(s.password !== undefined ? { password: s.password } : {}),
    ...(s.passwordFile !== undefined ? { passwordFile: s.passwordFile } : {}),
    authMethod: s.authMethod,
    ...(s.mtu !== undefined ? { mtu: s.mtu } : {}),
    ...(s.mru !== undefined ? { mru: s.mru } : {}),
    ipv6: s.ipv6,
    usePeerDNS: s.usePeerDNS,
    lcpEchoInterval: echo.interval,
    lcpEchoFailure: echo.failure,
    persist: s.persist,
    ...(s.acName !== undefined ? { acName: s.acName } : {}),
    ...(s.serviceName !== undefined ? { serviceName: s.serviceName } : {}),
  };
}

export const pppoeSessionKind = defineKind<PPPoESessionSpec>({
  apiVersion: API_GROUPS.net,
  kind: "PPPoESession",
  description: "A PPPoE uplink (routerd-pppoe-client running pppd with kernel-mode PPPoE); its default route and DNS servers follow the session.",
  class: "wan-acquisition",
  contract: { type: "TeardownLifecycle", teardown: "resource", artifactKinds: ["routerd.daemon", "linux.ipv4.route", "linux.ipv6.route", "file"] },
  supportsWhen: false,
  spec: pppoeSessionSpec,
  // The session's PPP link is an interface other resources name (NAT44Rule, FirewallZone, routes, PD, ...).
  ifname: (res) => res.spec.ifname,
  provides: { interface: "string", device: "string", currentAddress: "string", peerAddress: "string", gateway: "string", dnsServers: "stringList", connectedAt: "timestamp", dryRun: "bool" },
  status(res, ctx) {
    const base = { interface: ctx.ifname(res.spec.interface), device: res.spec.ifname, dryRun: false };
    const fact = sessionFact(ctx, res.metadata.name);
    if (fact.state === "unknown") return { fields: base, unknown: `PPPoE session unknown (${fact.reason})` };
    if (fact.state === "absent") return { ...(fact.phase ? { phase: fact.phase } : {}), fields: base };
    const v = fact.value;
    return {
      ...(fact.phase ? { phase: fact.phase } : {}),
      fields: { ...base, currentAddress: v.currentAddress, peerAddress: v.peerAddress, gateway: v.gateway ?? v.peerAddress, dnsServers: v.dnsServers, connectedAt: v.connectedAt },
    };
  },
  check(res, ctx) {
    const s = res.spec;
    if ((s.password === undefined) === (s.passwordFile === undefined)) {
      ctx.error(s.password === undefined ? ["password"] : ["passwordFile"], "give exactly one of password and passwordFile", "passwordFile: /etc/routerd/secrets/<name> (mode 0600) keeps the secret out of the config");
    }
    if (!s.managed) ctx.error(["managed"], "routerd always runs the session itself (routerd-pppoe-client)", "remove managed, or set it to true");
    for (const [now, old] of [["lcpEchoInterval", "lcpInterval"], ["lcpEchoFailure", "lcpFailure"]] as const) {
      if (s[now] !== undefined && s[old] !== undefined && s[now] !== s[old]) ctx.error([old], `${old} is the older name of ${now}, and the two disagree`, `keep only ${now}`);
      else if (s[old] !== undefined) ctx.warn([old], `${old} is the older name of ${now}`, `write ${now}: ${s[old]}`);
    }
    if (s.mtu !== undefined && s.mtu > 1492) ctx.warn(["mtu"], `PPPoE over a 1500-byte Ethernet carries at most 1492; ${s.mtu} needs RFC 4638 (baby jumbo) frames on the path`);
    for (const other of ctx.all<PPPoESessionSpec>("PPPoESession")) {
      if (other.index >= res.index) continue;
      if (other.spec.ifname === s.ifname) ctx.error(["ifname"], `PPPoESession/${other.metadata.name} already uses ifname ${s.ifname}`, "give each session its own ifname (ppp0, ppp1, ...)");
      else if (other.spec.defaultRoute && s.defaultRoute) ctx.error(["defaultRoute"], `PPPoESession/${other.metadata.name} installs the default route too`, "keep defaultRoute on one session; route the other with an EgressRoutePolicy");
    }
    for (const iface of ctx.all<{ ifname?: string }>("Interface")) {
      if ((iface.spec.ifname ?? iface.metadata.name) === s.ifname) ctx.error(["ifname"], `Interface/${iface.metadata.name} names the link ${s.ifname}, which pppd creates and removes with every session`, "drop that Interface and refer to this PPPoESession instead");
    }
    if (s.defaultRoute) {
      const dhcp = ctx.all<{ useRoutes: boolean; routeMetric: number }>("DHCPv4Client").find((c) => c.spec.useRoutes && c.spec.routeMetric === PPPOE_ROUTE_METRIC);
      if (dhcp) ctx.error(["defaultRoute"], `DHCPv4Client/${dhcp.metadata.name} installs its default route with metric ${PPPOE_ROUTE_METRIC} too`, "give the DHCPv4Client another routeMetric");
    }
  },
  holdsExisting(res, ctx) {
    const fact = sessionFact(ctx, res.metadata.name);
    return fact.state === "unknown" ? `PPPoE session unknown (${fact.reason})` : undefined;
  },
  intents(res, ctx) {
    const s = res.spec;
    if (!s.enabled) return [];
    const out: ArtifactIntent[] = [
      {
        kind: "routerd.daemon",
        name: artifactNames.daemon(PPPOE_CLIENT_DAEMON, res.metadata.name),
        owner: res.owner,
        action: "ensure",
        applyWith: "supervisor",
        attributes: { daemon: PPPOE_CLIENT_DAEMON, instance: res.metadata.name },
      },
    ];
    const fact = sessionFact(ctx, res.metadata.name);
    if (fact.state !== "present") return out;
    const session = fact.value;
    if (s.defaultRoute && session.currentAddress) {
      out.push({
        kind: "linux.ipv4.route",
        name: artifactNames.route(254, "0.0.0.0/0", PPPOE_ROUTE_METRIC),
        owner: res.owner,
        action: "ensure",
        applyWith: "ip-batch",
        attributes: { table: 254, destination: "0.0.0.0/0", metric: PPPOE_ROUTE_METRIC, type: "unicast", device: session.device },
      });
    }
    if (s.defaultRoute && s.ipv6 && session.ipv6PeerLinkLocal) {
      out.push({
        kind: "linux.ipv6.route",
        name: artifactNames.route(254, "::/0", PPPOE_ROUTE_METRIC),
        owner: res.owner,
        action: "ensure",
        applyWith: "ip-batch",
        attributes: { table: 254, destination: "::/0", metric: PPPOE_ROUTE_METRIC, type: "unicast", gateway: session.ipv6PeerLinkLocal, device: session.device },
      });
    }
    if (s.usePeerDNS && session.dnsServers.length) {
      const block = `pppoe-${res.metadata.name}`;
      out.push({
        kind: "file",
        name: artifactNames.fileBlock(RESOLV_CONF, block),
        owner: res.owner,
        action: "ensure",
        applyWith: "file-block",
        attributes: { path: RESOLV_CONF, block, content: session.dnsServers.map((d) => `nameserver ${d}`).join("\n") + "\n" },
      });
    }
    return out;
  },
});

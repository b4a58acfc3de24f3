// VirtualAddress: an address that follows the router which should answer for it. `mode: static` owns the
// address like IPv4StaticAddress (and announces it: gratuitous ARP / unsolicited NA); `mode: vrrp` hands it
// to keepalived, which routerd configures and supervises, and which moves it between routers.
import { isIPv4, isIPv6 } from "node:net";
import { artifactNames, type ArtifactIntent } from "@routerd/resource";
import { durationMs, formats } from "../formats.js";
import { API_GROUPS, defineKind } from "../kind.js";
import { t, type Infer } from "../schema.js";
import { fromSource } from "../status-source.js";
import { passwordSource } from "./bgp-policy.js";

/** One keepalived per router for every VRRP VirtualAddress. */
export const VRRP_DAEMON = { daemon: "keepalived", instance: "default" } as const;

const failoverVMAC = t.object({
  interface: formats.ifname(),
  macAddress: formats.mac(),
  parentInterface: t.interfaceRef(),
  linkLocalAddress: t.optional(formats.ipv6()),
  withdrawRouterAdvertisement: t.optional(t.bool()),
});

const trackSpec = t.object({
  resource: t.string({ pattern: /^(HealthCheck\/)?[A-Za-z0-9][A-Za-z0-9._-]*$/, patternHint: "HealthCheck/<name> or <name>" }).describe("the HealthCheck to follow"),
  unhealthyPenalty: t.optional(t.int({ min: 1, max: 253 }).describe("priority taken off while the check is unhealthy; without it the router gives the address up (FAULT)")),
  confirmConsecutiveHealthy: t.withDefault(t.int({ min: 1, max: 100 }), 1),
  confirmConsecutiveUnhealthy: t.withDefault(t.int({ min: 1, max: 100 }), 1),
});

const vrrpSpec = t.object({
  virtualRouterID: t.int({ min: 1, max: 255 }),
  priority: t.withDefault(t.int({ min: 1, max: 254 }).describe("the highest priority on the link holds the address"), 100),
  preempt: t.withDefault(t.bool().describe("take the address back from a lower-priority router"), true),
  peers: t.withDefault(t.array(formats.ip(), { unique: true }).describe("unicast advertisements to these routers instead of multicast"), []),
  authentication: t.optional(t.string({ minLength: 1, maxLength: 8 }).describe("VRRPv2 simple password (IPv4 only)")),
  authenticationFrom: t.optional(passwordSource),
  advertisementInterval: t.withDefault(formats.duration().describe("routerd extension: VRRP advertisement interval"), "1s"),
  failoverVMAC: t.optional(failoverVMAC),
  additionalFailoverVMACs: t.optional(t.array(failoverVMAC)),
});

export const virtualAddressSpec = t.object({
  address: t.optional(t.string({ minLength: 1 }).describe("address, optionally with its prefix length (192.0.2.254/24); without one it is a host address")),
  addressFrom: t.optional(fromSource({ format: "ip", into: "address" })),
  family: t.enum("ipv4", "ipv6"),
  interface: t.interfaceRef().describe("the Interface the address lives on"),
  mode: t.withDefault(t.enum("static", "vrrp"), "static"),
  gratuitousARP: t.withDefault(t.bool().describe("announce the address when it is added (gratuitous ARP, unsolicited NA for IPv6)"), true),
  hostname: t.optional(formats.hostname()),
  externalDNS: t.optional(t.bool()),
  track: t.withDefault(t.array(trackSpec), []),
  vrrp: t.optional(vrrpSpec),
});

export type VirtualAddressSpec = Infer<typeof virtualAddressSpec>;
export type VirtualAddressTrack = Infer<typeof trackSpec>;

/** The address and its prefix length; a bare address is a host address (/32, /128). */
export function virtualAddress(spec: VirtualAddressSpec): { address: string; prefixLength: number } | undefined {
  if (spec.address === undefined) return undefined;
  const [address = "", len] = spec.address.split("/");
  const family = isIPv4(address) ? "ipv4" : isIPv6(address) ? "ipv6" : undefined;
  if (family === undefined) return undefined;
  const max = family === "ipv4" ? 32 : 128;
  const prefixLength = len === undefined ? max : /^\d{1,3}$/.test(len) ? Number(len) : NaN;
  return prefixLength >= 0 && prefixLength <= max ? { address, prefixLength } : undefined;
}

/** The HealthCheck name a track entry follows. */
export const trackedCheck = (tr: VirtualAddressTrack): string => tr.resource.replace(/^HealthCheck\//, "");

/** VRRPv2 (keepalived's default, the only one with a password) for IPv4 with authentication, else VRRPv3. */
export const vrrpVersion = (spec: VirtualAddressSpec): 2 | 3 => (spec.family === "ipv4" && spec.vrrp?.authentication !== undefined ? 2 : 3);

export const virtualAddressKind = defineKind<VirtualAddressSpec>({
  apiVersion: API_GROUPS.net,
  kind: "VirtualAddress",
  description: "An address owned statically (announced on add) or moved between routers by VRRP (keepalived).",
  class: "address",
  contract: { type: "TeardownLifecycle", teardown: "resource", artifactKinds: ["linux.ipv4.address", "linux.ipv6.address", "linux.sysctl", "routerd.daemon"] },
  supportsWhen: true,
  spec: virtualAddressSpec,
  status: (res, ctx) => {
    const s = res.spec;
    const a = virtualAddress(s);
    const role = s.mode === "static" ? { state: "present" as const, value: "static" } : ctx.runtime.vrrpRole(res.metadata.name);
    return {
      fields: {
        address: a?.address,
        ifname: ctx.ifname(s.interface),
        ...(role.state === "present" ? { role: role.value } : {}),
        hostname: s.hostname,
        virtualRouterID: s.vrrp?.virtualRouterID,
        priority: s.vrrp?.priority,
        failoverVMACs: 0,
        dryRun: false,
      },
      ...(role.state === "unknown" ? { unknown: role.reason } : {}),
    };
  },
  provides: { address: "string", ifname: "string", role: "string", hostname: "string", virtualRouterID: "int", priority: "int", failoverVMACs: "int", dryRun: "bool" },
  check(res, ctx) {
    const s = res.spec;
    if (s.address === undefined && s.addressFrom === undefined) ctx.error(["address"], "is required (or addressFrom)");
    if (s.address !== undefined) {
      const a = virtualAddress(s);
      if (!a) ctx.error(["address"], `${JSON.stringify(s.address)} is not an IP address with an optional prefix length`, "write e.g. 192.0.2.254/24 or 2001:db8::1/64");
      else if ((s.family === "ipv4") !== isIPv4(a.address)) ctx.error(["address"], `is not an ${s.family === "ipv4" ? "IPv4" : "IPv6"} address but family is ${s.family}`);
    }
    if (s.externalDNS) ctx.warn(["externalDNS"], "is not used by routerd yet");
    if (s.mode === "static") {
      if (s.vrrp !== undefined) ctx.error(["vrrp"], "only applies with mode: vrrp");
      if (s.track.length) ctx.error(["track"], "only applies with mode: vrrp (a static address is always held)");
      return;
    }
    const v = s.vrrp;
    if (v === undefined) return ctx.error(["vrrp"], "is required with mode: vrrp", "add vrrp: {virtualRouterID: 1-255}");
    if (v.failoverVMAC !== undefined) ctx.error(["vrrp", "failoverVMAC"], "is not supported yet", "remove failoverVMAC");
    if (v.additionalFailoverVMACs?.length) ctx.error(["vrrp", "additionalFailoverVMACs"], "is not supported yet", "remove additionalFailoverVMACs");
    if (v.authenticationFrom !== undefined) ctx.error(["vrrp", "authenticationFrom"], "is not supported yet: keepalived reads the password from its config", "use authentication, or none");
    if (v.authentication !== undefined && s.family === "ipv6") ctx.error(["vrrp", "authentication"], "VRRPv3 (RFC 5798, the only version for IPv6) has no authentication", "remove authentication");
    const ms = durationMs(v.advertisementInterval);
    if (vrrpVersion(s) === 2 && (ms % 1000 !== 0 || ms < 1000 || ms > 255_000)) {
      ctx.error(["vrrp", "advertisementInterval"], "VRRPv2 (used with authentication) advertises in whole seconds, 1s-255s");
    } else if (ms % 10 !== 0 || ms < 100 || ms > 40_950) {
      ctx.error(["vrrp", "advertisementInterval"], "must be 100ms-40950ms in steps of 10ms (VRRPv3 centiseconds)");
    }
    if (v.peers.some((p) => isIPv4(p) !== (s.family === "ipv4"))) ctx.error(["vrrp", "peers"], `every peer must be an ${s.family} address`);
    s.track.forEach((tr, i) => {
      if (!ctx.all("HealthCheck").some((h) => h.metadata.name === trackedCheck(tr))) {
        ctx.error(["track", i, "resource"], `HealthCheck/${trackedCheck(tr)} does not exist`);
      }
    });
    // One virtual router per (interface, family, id) on this router.
    for (const other of ctx.all<VirtualAddressSpec>("VirtualAddress")) {
      if (other === res) break;
      const o = other.spec;
      if (o.mode === "vrrp" && o.interface === s.interface && o.family === s.family && o.vrrp?.virtualRouterID === v.virtualRouterID) {
        ctx.error(["vrrp", "virtualRouterID"], `${v.virtualRouterID} is already used on ${s.interface} by VirtualAddress/${other.metadata.name}`, "give each VirtualAddress of an interface its own virtualRouterID");
      }
    }
  },
  intents(res, ctx) {
    const s = res.spec;
    if (s.mode === "vrrp") {
      return [{ kind: "routerd.daemon", name: artifactNames.daemon(VRRP_DAEMON.daemon, VRRP_DAEMON.instance), owner: res.owner, action: "ensure", applyWith: "supervisor", attributes: { ...VRRP_DAEMON } }];
    }
    const a = virtualAddress(s);
    if (!a) return [];
    const ifname = ctx.ifname(s.interface);
    const kind = s.family === "ipv4" ? "linux.ipv4.address" : "linux.ipv6.address";
    const out: ArtifactIntent[] = [
      {
        kind,
        name: artifactNames.ipv4Address(ifname, a.address, a.prefixLength),
        owner: res.owner,
        action: "ensure",
        applyWith: "ip-batch",
        // IPv4: the executor sends the gratuitous ARP after adding; IPv6: the kernel's unsolicited NA (below).
        attributes: { ifname, address: a.address, prefixLength: a.prefixLength, ...(s.family === "ipv4" && s.gratuitousARP ? { gratuitousARP: true } : {}) },
      },
    ];
    if (s.family === "ipv6" && s.gratuitousARP) {
      // The kernel sends an unsolicited neighbour advertisement once duplicate address detection is done.
      const key = `net.ipv6.conf.${ifname}.ndisc_notify`;
      out.push({ kind: "linux.sysctl", name: key, owner: res.owner, action: "ensure", applyWith: "sysctl", attributes: { key, value: "1" } });
    }
    return out;
  },
});

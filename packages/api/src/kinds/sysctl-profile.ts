import { formats } from "../formats.js";
import { API_GROUPS, defineKind, type ConfigView } from "../kind.js";
import { t, type Infer } from "../schema.js";
import type { DHCPv4ClientSpec } from "./dhcpv4-client.js";
import type { InterfaceSpec } from "./interface.js";
import { sysctlIntents, sysctlValue, type SysctlSpec } from "./sysctl.js";

/** Profiles as data: what a Linux router needs, each line with its reason in docs/sysctl-profiles.md. */
export const SYSCTL_PROFILES = {
  "router-linux": {
    "net.ipv4.ip_forward": "1",
    "net.ipv6.conf.all.forwarding": "1",
    // Reverse-path filtering is set per link (see linkValues); "all" stays 0 so each link's own value
    // decides (the kernel applies the larger of the two), as systemd's defaults do. New links: loose.
    "net.ipv4.conf.all.rp_filter": "0",
    "net.ipv4.conf.default.rp_filter": "2",
    "net.ipv4.conf.all.accept_redirects": "0",
    "net.ipv4.conf.all.send_redirects": "0",
    "net.ipv4.conf.all.accept_source_route": "0",
    "net.ipv6.conf.all.accept_redirects": "0",
    "net.ipv4.icmp_echo_ignore_broadcasts": "1",
    "net.ipv4.tcp_syncookies": "1",
  },
} as const satisfies Record<string, Record<string, string>>;

export type SysctlProfileName = keyof typeof SYSCTL_PROFILES;

export const sysctlProfileSpec = t.object({
  profile: t.enum(...(Object.keys(SYSCTL_PROFILES) as SysctlProfileName[])),
  overrides: t.withDefault(t.map(formats.sysctlKey(), sysctlValue).describe("keys to add or change"), {}),
  runtime: t.withDefault(t.bool().describe("set the running kernel's values (false: only the persistent file)"), true),
  persistent: t.withDefault(t.bool(), false),
});

export type SysctlProfileSpec = Infer<typeof sysctlProfileSpec>;

/**
 * Per-link values of a profile for the config's Interfaces. router-linux: loose reverse-path filtering
 * (strict, 1, breaks asymmetric multi-uplink routing), except on links a DHCPv4Client runs on. That client
 * receives its first replies on a UDP socket from a server no route covers yet, and a loose check drops
 * them (clients on packet sockets never see this); once the lease's default route exists a loose check
 * passes everything on that link anyway. Links whose name has a dot (VLANs) keep the default's value: a
 * dotted key cannot name them.
 */
function linkValues(profile: SysctlProfileName, view: ConfigView): Record<string, string> {
  if (profile !== "router-linux") return {};
  const dhcp = new Set(view.all<DHCPv4ClientSpec>("DHCPv4Client").map((c) => c.spec.interface));
  // A key a Sysctl resource sets is that resource's.
  const explicit = new Set(view.all<SysctlSpec>("Sysctl").map((s) => s.spec.key));
  const out: Record<string, string> = {};
  for (const i of view.all<InterfaceSpec>("Interface")) {
    const ifname = view.ifname(i.metadata.name);
    const key = `net.ipv4.conf.${ifname}.rp_filter`;
    if (!ifname.includes(".") && !explicit.has(key)) out[key] = dhcp.has(i.metadata.name) ? "0" : "2";
  }
  return out;
}

/** What the profile sets: its values, the per-link values for the config's links, then the overrides. */
export function profileValues(spec: SysctlProfileSpec, view?: ConfigView): Record<string, string> {
  return { ...SYSCTL_PROFILES[spec.profile], ...(view ? linkValues(spec.profile, view) : {}), ...spec.overrides };
}

export const sysctlProfileKind = defineKind<SysctlProfileSpec>({
  apiVersion: API_GROUPS.system,
  kind: "SysctlProfile",
  description: "A named set of kernel parameters (router-linux: forwarding, loose rp_filter per link but off on DHCPv4 uplinks, no redirects).",
  class: "system",
  contract: { type: "ArtifactKinds", artifactKinds: ["linux.sysctl", "file"] },
  supportsWhen: false,
  spec: sysctlProfileSpec,
  status: (res) => ({ fields: { profile: res.spec.profile, dryRun: false } }),
  provides: { profile: "string", dryRun: "bool" },
  intents: (res, ctx) =>
    Object.entries(profileValues(res.spec, ctx)).flatMap(([key, value]) => sysctlIntents(res.owner, key, value, res.spec.persistent, { runtime: res.spec.runtime })),
});

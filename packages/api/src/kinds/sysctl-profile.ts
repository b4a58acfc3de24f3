import { formats } from "../formats.js";
import { API_GROUPS, defineKind } from "../kind.js";
import { t, type Infer } from "../schema.js";
import { sysctlIntents, sysctlValue } from "./sysctl.js";

/** Profiles as data: what a Linux router needs, each line with its reason in docs/sysctl-profiles.md. */
export const SYSCTL_PROFILES = {
  "router-linux": {
    "net.ipv4.ip_forward": "1",
    "net.ipv6.conf.all.forwarding": "1",
    // Loose reverse-path filtering: strict (1) breaks asymmetric multi-uplink routing.
    "net.ipv4.conf.all.rp_filter": "2",
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
  persistent: t.withDefault(t.bool(), false),
});

export type SysctlProfileSpec = Infer<typeof sysctlProfileSpec>;

export function profileValues(spec: SysctlProfileSpec): Record<string, string> {
  return { ...SYSCTL_PROFILES[spec.profile], ...spec.overrides };
}

export const sysctlProfileKind = defineKind<SysctlProfileSpec>({
  apiVersion: API_GROUPS.system,
  kind: "SysctlProfile",
  description: "A named set of kernel parameters (router-linux: forwarding, loose rp_filter, no redirects).",
  class: "system",
  contract: { type: "ArtifactKinds", artifactKinds: ["linux.sysctl", "file"] },
  supportsWhen: false,
  spec: sysctlProfileSpec,
  status: (res) => ({ fields: { profile: res.spec.profile, dryRun: false } }),
  provides: { profile: "string", dryRun: "bool" },
  intents: (res) =>
    Object.entries(profileValues(res.spec)).flatMap(([key, value]) => sysctlIntents(res.owner, key, value, res.spec.persistent)),
});

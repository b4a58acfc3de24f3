// Schemas shared by BGPRouter and BGPPeer (the original's field names): prefixes, communities, import and
// export policies, timer profiles. The peer's values override the router's; see effectiveBgpPolicy in
// routerd-bgp.
import { isIPv4, isIPv6 } from "node:net";
import { formats } from "../formats.js";
import { t, type Infer } from "../schema.js";

/** An IPv4 or IPv6 network prefix with no host bits set: 10.0.0.0/8, 2001:db8::/32. */
export function checkIpPrefix(v: string): string | undefined {
  const slash = v.indexOf("/");
  const addr = slash < 0 ? v : v.slice(0, slash);
  const len = slash < 0 ? Number.NaN : Number(v.slice(slash + 1));
  const max = isIPv4(addr) ? 32 : isIPv6(addr) ? 128 : 0;
  if (max === 0 || !Number.isInteger(len) || len < 0 || len > max || !/^\d+$/.test(v.slice(slash + 1))) {
    return `${JSON.stringify(v)} is not a prefix like 10.0.0.0/8 or 2001:db8::/32`;
  }
  return undefined;
}

export const ipPrefix = () => t.string({ check: checkIpPrefix });

/** Well-known community names GoBGP accepts, besides ASN:VALUE. */
export const WELL_KNOWN_COMMUNITIES = ["no-export", "no-advertise", "no-export-subconfed", "blackhole", "graceful-shutdown", "llgr-stale", "no-llgr"] as const;

export function checkCommunity(v: string): string | undefined {
  if ((WELL_KNOWN_COMMUNITIES as readonly string[]).includes(v)) return undefined;
  const m = /^(\d{1,5}):(\d{1,5})$/.exec(v);
  if (m && Number(m[1]) <= 65535 && Number(m[2]) <= 65535) return undefined;
  return `${JSON.stringify(v)} is not a community like 65000:100 or one of ${WELL_KNOWN_COMMUNITIES.join(", ")}`;
}

const community = () => t.string({ check: checkCommunity });

export const bgpCommunities = t.object({
  accept: t.optional(t.array(community()).describe("only paths carrying one of these communities are accepted")),
  send: t.optional(t.enum("standard", "extended", "both").describe("which community attributes are sent to peers")),
  set: t.optional(
    t.object({
      in: t.optional(t.array(community()).describe("added to every accepted path")),
      out: t.optional(t.array(community()).describe("added to every advertised path")),
    }),
  ),
});

export const bgpImportPolicy = t.object({
  allowedPrefixes: t.optional(t.array(ipPrefix()).describe("accept only paths inside these prefixes")),
  allowedPrefixLengthMin: t.optional(t.int({ min: 0, max: 128 })),
  allowedPrefixLengthMax: t.optional(t.int({ min: 0, max: 128 })),
  requiredCommunities: t.optional(t.array(community()).describe("accept only paths carrying all of these")),
  forbiddenCommunities: t.optional(t.array(community()).describe("reject paths carrying any of these")),
  localPreference: t.optional(t.int({ min: 0, max: 4294967295 }).describe("applied on accepted paths before best-path selection")),
  nextHopRewrite: t.optional(t.enum("peer-address", "unchanged")),
});

export const bgpExportPolicy = t.object({
  allowedPrefixes: t.optional(t.array(ipPrefix()).describe("advertise only these prefixes (default: nothing)")),
});

export const bgpTimers = t.object({
  profile: t.withDefault(t.enum("default", "fast", "slow"), "default"),
});

export const passwordSource = t.object({
  file: t.optional(t.string({ pattern: /^\/[^\0]*$/, patternHint: "an absolute file path" })),
  env: t.optional(t.string({ pattern: /^[A-Za-z_][A-Za-z0-9_]*$/, patternHint: "an environment variable name" })),
  base64: t.optional(t.bool().describe("the file or variable holds the password base64-encoded")),
});

export type BgpCommunities = Infer<typeof bgpCommunities>;
export type BgpImportPolicy = Infer<typeof bgpImportPolicy>;
export type BgpExportPolicy = Infer<typeof bgpExportPolicy>;
export type BgpTimers = Infer<typeof bgpTimers>;
export type PasswordSource = Infer<typeof passwordSource>;

/** Hold time and keepalive (seconds) of each timers profile. */
export const BGP_TIMER_PROFILES = {
  default: { holdTime: 90, keepaliveInterval: 30, connectRetry: 30 },
  fast: { holdTime: 9, keepaliveInterval: 3, connectRetry: 5 },
  slow: { holdTime: 180, keepaliveInterval: 60, connectRetry: 60 },
} as const;

export const listenAddress = () => formats.ip();

// BFD: one Bidirectional Forwarding Detection session to a BGP neighbor, run by FRR's bfdd inside the
// BGPRouter's routerd-bgp (the BGPPeer naming it with `bfd:` ties the two). When the session goes from Up to
// Down, routerd-bgp takes the BGP session down at once, so its routes leave the FIB within the detection
// time instead of the hold time; Up again re-enables it. The BFD owns nothing on the host.
import { artifactNames, type ArtifactIntent } from "@routerd/resource";
import { durationMs, formats } from "../formats.js";
import { API_GROUPS, defineKind, type ConfigView, type Resource } from "../kind.js";
import { t, type Infer } from "../schema.js";
import type { BGPPeerSpec } from "./bgp-peer.js";
import { BGP_DAEMON } from "./bgp-router.js";
import { bfdStatus } from "./bgp-status.js";

export const bfdSpec = t.object({
  peer: formats.ip().describe("the neighbor's address: one of the naming BGPPeer's peers[]"),
  interface: t.optional(t.interfaceRef().describe("bind the session to this interface (single hop)")),
  profile: t.withDefault(t.enum("fast", "normal", "slow").describe("intervals: fast 100 ms, normal 300 ms, slow 1 s; detection after 3 missed"), "normal"),
  minRx: t.optional(formats.duration().describe("required minimum receive interval (overrides the profile)")),
  minTx: t.optional(formats.duration().describe("desired minimum transmit interval (overrides the profile)")),
  detectMultiplier: t.optional(t.int({ min: 2, max: 255 }).describe("missed packets before the session is down (overrides the profile)")),
});

export type BFDSpec = Infer<typeof bfdSpec>;

/** Intervals (ms) and multiplier of each profile. */
export const BFD_PROFILES = {
  fast: { minRxMs: 100, minTxMs: 100, multiplier: 3 },
  normal: { minRxMs: 300, minTxMs: 300, multiplier: 3 },
  slow: { minRxMs: 1000, minTxMs: 1000, multiplier: 3 },
} as const;

export interface BfdTimers {
  minRxMs: number;
  minTxMs: number;
  multiplier: number;
}

/** The session's timers: the profile's, with minRx/minTx/detectMultiplier overriding. */
export function bfdTimers(spec: BFDSpec): BfdTimers {
  const p = BFD_PROFILES[spec.profile];
  return {
    minRxMs: spec.minRx !== undefined ? durationMs(spec.minRx) : p.minRxMs,
    minTxMs: spec.minTx !== undefined ? durationMs(spec.minTx) : p.minTxMs,
    multiplier: spec.detectMultiplier ?? p.multiplier,
  };
}

/** The BGPRouter whose routerd-bgp runs the session (through the BGPPeer naming it). */
function bfdRouter(res: Resource<BFDSpec>, ctx: ConfigView): string | undefined {
  const user = ctx.referrers("BFD", res.metadata.name).find((r) => r.kind === "BGPPeer");
  return user !== undefined ? (user.spec as BGPPeerSpec).routerRef : undefined;
}

/** bfdd accepts intervals of 10 ms to 60 s. */
const INTERVAL_MS = { min: 10, max: 60_000 };

export const bfdKind = defineKind<BFDSpec>({
  apiVersion: API_GROUPS.net,
  kind: "BFD",
  description: "A BFD session (FRR bfdd in the BGPRouter's routerd-bgp) that takes the BGPPeer naming it down as soon as the link fails.",
  class: "route",
  contract: { type: "NoHostTeardownReason", reason: "its session lives in the bfdd of the BGPRouter's routerd-bgp, which removes it when the BFD goes" },
  supportsWhen: true,
  spec: bfdSpec,
  // The peer is known from the config; the phase (Up, Down, Init, AdminDown) from routerd-bgp.
  status: (res, ctx) => bfdStatus(res, ctx, bfdRouter(res, ctx)),
  provides: { peer: "string" },
  check(res, ctx) {
    const s = res.spec;
    for (const field of ["minRx", "minTx"] as const) {
      const v = s[field];
      if (v === undefined) continue;
      const ms = durationMs(v);
      if (ms < INTERVAL_MS.min || ms > INTERVAL_MS.max || !Number.isInteger(ms)) ctx.error([field], `${v} is outside bfdd's range`, "give whole milliseconds from 10ms to 60s");
    }
    const users = ctx.referrers("BFD", res.metadata.name).filter((r) => r.kind === "BGPPeer");
    if (users.length === 0) {
      ctx.error([], "no BGPPeer names this BFD: its session runs in a BGPRouter's routerd-bgp", `add bfd: ${res.metadata.name} to the BGPPeer whose peers[] holds ${s.peer}`);
    }
    for (const other of ctx.all<BFDSpec>("BFD")) {
      if (other === res) break;
      if (other.spec.peer === s.peer) ctx.error(["peer"], `${s.peer} already has a BFD session: BFD/${other.metadata.name}`);
    }
  },
  // The session lives in the routerd-bgp of the router whose BGPPeer names it.
  intents: (res, ctx): ArtifactIntent[] =>
    [bfdRouter(res, ctx)].filter((r): r is string => r !== undefined).map((router) => ({
      kind: "routerd.daemon",
      name: artifactNames.daemon(BGP_DAEMON, router),
      owner: res.owner,
      action: "observe",
      applyWith: "supervisor",
      attributes: { daemon: BGP_DAEMON, instance: router },
    })),
});

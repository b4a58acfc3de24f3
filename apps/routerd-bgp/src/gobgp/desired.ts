// The GoBGP configuration one BGPRouter and its BGPPeers ask for (pure): global settings, one neighbor per
// address in each BGPPeer's peers[], and the per-neighbor import/export policies. apply.ts diffs this
// against what gobgpd runs.
import { createHash } from "node:crypto";
import { isIPv6 } from "node:net";
import { BGP_TIMER_PROFILES, durationMs, type BGPRouterSpec } from "@routerd/api";
import type { DefinedSet, Global, Peer, Policy } from "@routerd/gobgp-api/gen/gobgp";
import type { BgpConfig, PeerConfig } from "../config/config.js";
import { FAMILY_IPV4, FAMILY_IPV6 } from "./codec.js";
import { renderExport, renderImport, type DirectionPolicy } from "./policy.js";

export interface DesiredNeighbor {
  address: string;
  /** Names of its import and export policies (in the global assignment), "" for none. */
  policies: string;
  /** The BGPPeer it comes from. */
  owner: string;
  peer: Peer;
  /** Changes whenever anything in `peer` does (the password included, hashed). */
  digest: string;
}

export interface DesiredBgp {
  global: Global;
  globalDigest: string;
  sets: Map<string, DefinedSet>;
  policies: Map<string, Policy>;
  /** The global import and export assignments: every neighbor's policy, in name order. */
  importPolicies: string[];
  exportPolicies: string[];
  neighbors: Map<string, DesiredNeighbor>;
}

const hash = (v: unknown) => createHash("sha256").update(JSON.stringify(v)).digest("hex").slice(0, 16);

const seconds = (d: string | undefined, fallback: number) => (d === undefined ? fallback : Math.round(durationMs(d) / 1000));

function timerProfile(router: BGPRouterSpec, peer: PeerConfig): keyof typeof BGP_TIMER_PROFILES {
  const explicit = peer.spec.timers?.profile ?? router.timers?.profile;
  if (explicit !== undefined) return explicit;
  return router.convergenceProfile === "fast" ? "fast" : router.convergenceProfile === "stable" ? "slow" : "default";
}

export function desiredGlobal(router: BGPRouterSpec): Global {
  const port = router.listen?.port ?? 179;
  const gr = router.gracefulRestart;
  return {
    asn: router.asn,
    routerId: router.routerID,
    // -1: gobgpd does not listen at all (active sessions only).
    listenPort: port === 0 ? -1 : port,
    listenAddresses: router.listen?.address !== undefined ? [router.listen.address] : [],
    families: [],
    // GoBGP then reports every equal-cost best path of a prefix: the FIB gets an ECMP route.
    useMultiplePaths: true,
    bindToDevice: "",
    ...(gr?.enabled
      ? {
          gracefulRestart: {
            enabled: true,
            restartTime: seconds(gr.restartTime, 120),
            helperOnly: false,
            deferralTime: 0,
            notificationEnabled: true,
            longlivedEnabled: false,
            staleRoutesTime: seconds(gr.stalePathTime, 360),
            peerRestartTime: 0,
            peerRestarting: false,
            localRestarting: false,
            mode: "",
          },
        }
      : {}),
  };
}

export function directionPolicy(router: BGPRouterSpec, peer: PeerConfig): DirectionPolicy {
  const s = peer.spec;
  return {
    ...(s.importPolicy ?? router.importPolicy ? { import: s.importPolicy ?? router.importPolicy } : {}),
    ...(s.exportPolicy ?? router.exportPolicy ? { export: s.exportPolicy ?? router.exportPolicy } : {}),
    ...(s.communities ?? router.communities ? { communities: s.communities ?? router.communities } : {}),
  };
}

const SEND_COMMUNITY = { standard: 0, extended: 1, both: 2 } as const;

function neighborPeer(router: BGPRouterSpec, peer: PeerConfig, address: string, password: string): Peer {
  const s = peer.spec;
  const t = BGP_TIMER_PROFILES[timerProfile(router, peer)];
  const gr = router.gracefulRestart?.enabled === true;
  const family = isIPv6(address) ? FAMILY_IPV6 : FAMILY_IPV4;
  const send = s.communities?.send ?? router.communities?.send;
  return {
    conf: {
      neighborAddress: address,
      peerAsn: s.peerASN,
      localAsn: router.asn,
      authPassword: password,
      description: `routerd BGPPeer/${peer.name}`,
      peerGroup: "",
      type: 0,
      removePrivate: 0,
      routeFlapDamping: false,
      sendCommunity: send !== undefined ? SEND_COMMUNITY[send] : 0,
      neighborInterface: "",
      vrf: "",
      allowOwnAsn: 0,
      replacePeerAsn: false,
      adminDown: false,
    },
    ...(s.ebgpMultihop !== undefined ? { ebgpMultihop: { enabled: true, multihopTtl: s.ebgpMultihop } } : {}),
    ...(s.routeReflectorClient ? { routeReflector: { routeReflectorClient: true, routeReflectorClusterId: s.routeReflectorClusterID ?? "" } } : {}),
    timers: {
      config: { connectRetry: t.connectRetry, holdTime: t.holdTime, keepaliveInterval: t.keepaliveInterval, minimumAdvertisementInterval: 0, idleHoldTimeAfterReset: 0 },
    },
    transport: {
      localAddress: "",
      localPort: 0,
      mtuDiscovery: false,
      passiveMode: s.passiveMode ?? false,
      remoteAddress: address,
      remotePort: 0,
      tcpMss: 0,
      bindInterface: "",
    },
    ...(gr
      ? {
          gracefulRestart: {
            enabled: true,
            restartTime: seconds(router.gracefulRestart?.restartTime, 120),
            helperOnly: false,
            deferralTime: 0,
            notificationEnabled: true,
            longlivedEnabled: false,
            staleRoutesTime: seconds(router.gracefulRestart?.stalePathTime, 360),
            peerRestartTime: 0,
            peerRestarting: false,
            localRestarting: false,
            mode: "",
          },
        }
      : {}),
    afiSafis: [{ config: { family, enabled: true }, ...(gr ? { mpGracefulRestart: { config: { enabled: true } } } : {}) }],
  } as Peer;
}

/** passwords: BGPPeer name → resolved password ("" for none). */
export function desiredBgp(config: BgpConfig, passwords: ReadonlyMap<string, string>): DesiredBgp {
  const router = config.router.spec;
  const global = desiredGlobal(router);
  const sets = new Map<string, DefinedSet>();
  const policies = new Map<string, Policy>();
  const neighbors = new Map<string, DesiredNeighbor>();
  const importPolicies: string[] = [];
  const exportPolicies: string[] = [];
  for (const peer of config.peers) {
    const dir = directionPolicy(router, peer);
    for (const address of peer.spec.peers) {
      const imp = renderImport(peer.name, address, dir);
      const exp = renderExport(peer.name, address, dir);
      for (const r of [imp, exp]) {
        if (r === undefined) continue;
        for (const s of r.sets) sets.set(s.name, s);
        policies.set(r.policy.name, r.policy);
      }
      const password = passwords.get(peer.name) ?? "";
      const p = neighborPeer(router, peer, address, password);
      if (imp) importPolicies.push(imp.policy.name);
      if (exp) exportPolicies.push(exp.policy.name);
      const names = `${imp?.policy.name ?? ""},${exp?.policy.name ?? ""}`;
      neighbors.set(address, { address, owner: peer.name, peer: p, digest: hash(p), policies: names });
    }
  }
  importPolicies.sort();
  exportPolicies.sort();
  return { global, globalDigest: hash(global), sets, policies, importPolicies, exportPolicies, neighbors };
}

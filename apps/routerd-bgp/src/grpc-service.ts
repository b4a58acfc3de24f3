// routerd.bgp.v1.Bgp: the neighbor view and the routes (GoBGP's best paths next to what the FIB holds).
import { status as grpcStatus } from "@grpc/grpc-js";
import { checkIpPrefix } from "@routerd/api";
import { ListPathRequest_SortType, TableLookupPrefix_Type, TableType } from "@routerd/gobgp-api/gen/gobgp";
import type { BgpServer, FibInfo, PeerInfo, RouteInfo } from "@routerd/rpc/gen/routerd/bgp/v1/bgp";
import { FAMILY_IPV4, FAMILY_IPV6, pathDetails } from "./gobgp/codec.js";
import type { PeerView } from "./peers.js";
import type { BgpRouter } from "./router.js";

const DEFAULT_LIMIT = 1000;

export function toPeerInfo(v: PeerView, now = Date.now()): PeerInfo {
  return {
    address: v.address,
    peer: v.owner,
    peerAsn: v.peerASN,
    state: v.state,
    stateSince: new Date(v.since),
    uptimeSeconds: v.establishedAt !== undefined ? Math.floor((now - v.establishedAt) / 1000) : 0,
    receivedPrefixes: v.received,
    acceptedPrefixes: v.accepted,
    advertisedPrefixes: v.advertised,
    flaps: v.flaps,
  };
}

export function fibInfo(router: BgpRouter): FibInfo | undefined {
  const fib = router.fib;
  if (fib === undefined) return undefined;
  const s = fib.stats;
  return { ...fib.target, installed: s.installed, desired: s.desired, pending: s.pending, retained: s.retained, writes: s.writes, failures: s.failures };
}

export async function listRoutes(router: BgpRouter, prefix: string, limit: number): Promise<{ routes: RouteInfo[]; truncated: boolean }> {
  const families = prefix === "" ? [FAMILY_IPV4, FAMILY_IPV6] : [prefix.includes(":") ? FAMILY_IPV6 : FAMILY_IPV4];
  const routes: RouteInfo[] = [];
  let truncated = false;
  for (const family of families) {
    const dests = await router.client.listPath({
      tableType: TableType.GLOBAL,
      name: "",
      family,
      prefixes: prefix === "" ? [] : [{ prefix, type: TableLookupPrefix_Type.LONGER }],
      sortType: ListPathRequest_SortType.PREFIX,
      enableFiltered: false,
      enableNlriBinary: false,
      enableAttributeBinary: false,
      enableOnlyBinary: false,
    });
    for (const d of dests) {
      const best = (d.destination?.paths ?? []).map((p) => pathDetails(p)).filter((p) => p !== undefined && p.best && !p.withdraw);
      const first = best[0];
      if (first === undefined) continue;
      if (routes.length >= limit) {
        truncated = true;
        break;
      }
      const wanted = router.fib?.desiredRoutes().get(first.prefix);
      const installed = router.fib?.installed(first.prefix);
      routes.push({
        prefix: first.prefix,
        nextHops: wanted !== undefined ? wanted.split(",") : first.local ? [] : [first.nextHop],
        installedNextHops: installed !== undefined ? installed.split(",") : [],
        asPath: first.asPath,
        communities: first.communities,
        localPref: first.localPref ?? 0,
        neighbor: first.local ? "" : first.neighbor,
        local: first.local,
      });
    }
  }
  return { routes, truncated };
}

export function bgpServer(router: () => BgpRouter | undefined): BgpServer {
  return {
    listPeers(_call, callback) {
      const r = router();
      if (r === undefined) return callback({ code: grpcStatus.UNAVAILABLE, details: "BGP router not started" });
      r.refreshPeers().then(
        () => callback(null, { peers: r.peers.list().map((v) => toPeerInfo(v)) }),
        // Counts could not be refreshed (gobgpd restarting): the states are still right.
        () => callback(null, { peers: r.peers.list().map((v) => toPeerInfo(v)) }),
      );
    },
    listRoutes(call, callback) {
      const r = router();
      if (r === undefined) return callback({ code: grpcStatus.UNAVAILABLE, details: "BGP router not started" });
      const prefix = call.request.prefix.trim();
      if (prefix !== "" && checkIpPrefix(prefix) !== undefined) {
        return callback({ code: grpcStatus.INVALID_ARGUMENT, details: `${JSON.stringify(prefix)} is not a prefix like 10.0.0.0/8 or 2001:db8::/32` });
      }
      listRoutes(r, prefix, call.request.limit || DEFAULT_LIMIT).then(
        (res) => callback(null, { ...res, ...(fibInfo(r) ? { fib: fibInfo(r) } : {}) }),
        (err: Error) => callback({ code: grpcStatus.UNAVAILABLE, details: `gobgpd: ${err.message}` }),
      );
    },
  };
}

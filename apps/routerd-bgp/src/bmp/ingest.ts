// The BMP ingest: gobgpd sends its pre-policy route monitoring (the UPDATEs as received: ~4 bytes a
// prefix in a full table, against ~270 for WatchEvent's api.Path) to a station of routerd-bgp's on
// loopback (station.ts); peer states for status still come from WatchEvent (peer events only, no table).
// The paths and the sessions' ups and downs used for the RIB come from the BMP stream alone, in gobgpd's
// order (feed.ts): a Peer Down follows that neighbor's last paths, so no path outlives its session.
import { AddBmpRequest_MonitoringPolicy } from "@routerd/gobgp-api/gen/gobgp";
import type { Ingest, IngestContext, IngestHandlers } from "../gobgp/ingest.js";
import { isEstablished, watchGobgp } from "../gobgp/watch.js";
import { BmpFeed } from "./feed.js";
import { BmpStation } from "./station.js";

const STATION = "127.0.0.1";

export function bmpIngest(ctx: IngestContext, h: IngestHandlers): Ingest {
  let closed = false;
  let port = 0;
  const end = (err: Error | undefined) => {
    if (closed) return;
    void close();
    h.onEnd(err);
  };
  const peers = watchGobgp(ctx.client, { onPeer: (peer) => h.onPeer(peer), onPaths: () => undefined, onEnd: end }, false);
  let established: ReadonlySet<string> = new Set();
  let connections = 0;
  const station = new BmpStation({
    logger: ctx.logger,
    pid: ctx.gobgpdPid,
    onConnection: () => {
      // gobgpd reconnected on its own (the last connection broke): a subscription of its own, from scratch.
      if (connections++ > 0) {
        end(new Error("BMP connection replaced"));
        return { event: () => undefined, idle: () => undefined, closed: () => undefined };
      }
      const feed = new BmpFeed(
        {
          table: (paths, snapshot) => {
            ctx.logger.info({ paths: paths.length, neighbors: snapshot }, "BMP snapshot received");
            h.onTable([paths], snapshot);
          },
          paths: (paths) => h.onPaths(paths),
          session: (neighbor, up) => h.onSession(neighbor, up),
        },
        established,
      );
      return {
        event: (ev) => {
          if (!feed.live && ev.type === "route") for (const p of ev.paths) h.onHeard(p.neighbor);
          feed.event(ev);
        },
        idle: () => feed.idle(),
        closed: (err) => end(err ?? new Error("BMP connection closed")),
      };
    },
  });
  const close = async () => {
    if (closed) return;
    closed = true;
    peers.cancel();
    station.close();
    // gobgpd would keep dialling the port (and send the routes to whoever listens there next).
    if (port !== 0) await ctx.client.deleteBmp(STATION, port).catch(() => undefined);
  };
  void (async () => {
    try {
      port = await station.listen();
      // The sessions Established before the station is registered: their Peer Ups open the snapshot.
      const list = await ctx.client.listPeers();
      h.onListed(list);
      established = new Set(list.filter(isEstablished).map((p) => p.state?.neighborAddress || p.conf?.neighborAddress || "").filter(Boolean));
      // Stations an earlier routerd-bgp registered (a re-attach) go: only this one is ours now.
      for (const s of await ctx.client.listBmp()) await ctx.client.deleteBmp(s.address, s.port).catch(() => undefined);
      if (closed) return;
      await ctx.client.addBmp({ address: STATION, port, policy: AddBmpRequest_MonitoringPolicy.PRE, StatisticsTimeout: 0, SysName: "routerd-bgp", SysDescr: "" });
      ctx.logger.info({ port, established: [...established] }, "BMP station registered");
    } catch (err) {
      ctx.logger.warn({ err: (err as Error).message }, "BMP station set-up failed: resubscribing");
      end(err as Error);
    }
  })();
  return { orderedSessions: true, close };
}

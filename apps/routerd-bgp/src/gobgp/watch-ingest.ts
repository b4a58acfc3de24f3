// The WatchEvent ingest: one stream of peer events and pre-policy Adj-RIB-In events (watch.ts); the
// table already there is read with ListPath (listAdjIn) after subscribing, and the events arriving
// meanwhile are held and applied after it.
import type { AdjInPath } from "../rib/attrs.js";
import type { Ingest, IngestContext, IngestHandlers } from "./ingest.js";
import { isEstablished, listAdjIn, watchGobgp } from "./watch.js";

export function watchIngest(ctx: IngestContext, h: IngestHandlers): Ingest {
  let closed = false;
  let held: AdjInPath[][] | undefined = [];
  const stream = watchGobgp(ctx.client, {
    onPeer: (peer) => h.onPeer(peer),
    onPaths: (paths) => {
      if (held === undefined) return h.onPaths(paths);
      held.push(paths);
      for (const p of paths) h.onHeard(p.neighbor);
    },
    onEnd: (err) => !closed && h.onEnd(err),
  });
  void (async () => {
    try {
      const peers = await ctx.client.listPeers();
      h.onListed(peers);
      const established = peers.filter(isEstablished).map((p) => p.state?.neighborAddress || p.conf?.neighborAddress || "").filter(Boolean);
      const listed = await Promise.all(established.map((n) => listAdjIn(ctx.client, n)));
      if (closed) return;
      const pending = held ?? [];
      held = undefined;
      h.onTable([...listed, ...pending], established);
    } catch (err) {
      if (closed) return;
      ctx.logger.warn({ err: (err as Error).message }, "reading the Adj-RIB-In failed: resubscribing");
      closed = true;
      stream.cancel();
      h.onEnd(err as Error);
    }
  })();
  return {
    orderedSessions: false,
    close() {
      closed = true;
      stream.cancel();
      return Promise.resolve();
    },
  };
}

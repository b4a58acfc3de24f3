// routerd serve's resident inventory (packages/host resident/): the kernel objects it observed, kept
// between reconciles and followed through netlink notifications, so a reconcile reads again only what
// changed. Its state is logged, reported as events and shown in serve's status ("inventory").
import type { DaemonContext, JsonObject } from "@routerd/daemon-kit";
import { ResidentInventory, type ResidentState } from "@routerd/host";
import type { Logger } from "pino";

export function serveInventory(logger: Logger, ctx: () => DaemonContext | undefined): ResidentInventory {
  return new ResidentInventory({
    onState: (live, reason) => {
      if (live) logger.info({ reason }, "resident inventory live");
      else logger.warn({ reason }, "resident inventory not live");
      ctx()?.events.emit({ topic: live ? "inventory.live" : "inventory.fallback", severity: live ? "info" : "warning", message: reason });
    },
  });
}

/** The status detail: whether notifications are followed, and how many observations were reused or read. */
export function inventoryDetails(s: ResidentState): JsonObject {
  return { live: s.live, hits: s.hits, reads: s.reads, resyncs: s.resyncs, monitorStarts: s.monitorStarts, ...(s.reason ? { reason: s.reason } : {}) };
}

// Shared by the BFD e2e files: a BFD resource's status from routerd-bgp, and one cut measured (BFD Down after
// the cut, the FIB route gone after BFD Down).
import { connectDaemon } from "@routerd/rpc";
import { readFileSync } from "node:fs";
import { until } from "../lib/serve.js";

export interface BfdStatus {
  phase: string;
  details: { state: string; since: string; downs: number; bgpDisabled: boolean; localAddress: string; multihop: boolean };
}

export async function bfdStatus(socket: string, name: string): Promise<BfdStatus | undefined> {
  const c = await connectDaemon(socket, { connectTimeoutMs: 1000 });
  try {
    const r = (await c.getStatus()).resources.find((x) => x.name === `BFD/${name}`);
    return r ? { phase: r.phase, details: JSON.parse(r.detailsJson) } : undefined;
  } finally {
    c.close();
  }
}

/** Cuts, waits (≤ 15 s) for the route to leave the FIB, then for BFD Down; the times in ms and the status. */
export async function measureCut(o: { cut: () => void; routePresent: () => boolean; status: () => Promise<BfdStatus | undefined>; label: string }): Promise<{ detect: number; withdraw: number; routeGone: boolean; status: BfdStatus }> {
  o.cut();
  const cutAt = Date.now();
  let goneAt = 0;
  while (Date.now() - cutAt < 15_000) {
    if (!o.routePresent()) {
      goneAt = Date.now();
      break;
    }
    await new Promise((r) => setTimeout(r, 10));
  }
  const status = (await until("BFD down", async () => ((await o.status())?.phase === "Down" ? o.status() : undefined), 5_000))!;
  const downAt = Date.parse(status.details.since);
  const detect = downAt - cutAt;
  const withdraw = goneAt - downAt;
  console.log(`${o.label}: down ${detect} ms after the cut, FIB withdrawn ${withdraw} ms after BFD down (load ${readFileSync("/proc/loadavg", "utf8").split(" ")[0]})`);
  return { detect, withdraw, routeGone: goneAt > 0, status };
}

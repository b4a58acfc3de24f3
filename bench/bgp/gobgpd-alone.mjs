// "gobgpd alone": the floor routerd-bgp stands on. The same gobgpd routerd-bgp runs (its command line,
// gobgpdArgs) given the same configuration through the same code (desiredBgp + applyDesired on the bench's
// routerd-bgp config), with nobody watching its events and no FIB: Established → gobgpd has accepted all N
// paths of the neighbor. Polled with ListPeer(neighbor) every POLL_MS: its `accepted` counter is O(1) in
// gobgpd, but ListPeer also counts `received` by walking the neighbor's Adj-RIB-In (O(N)), so the poll
// is kept coarse; it runs in gobgpd's main loop between two UPDATEs, so a count of N means all N were
// processed (Adj-RIB-In, policy, best path).
import { mkdirSync, openSync } from "node:fs";
import { join } from "node:path";
import { PEER_IP, sleep } from "./lab.mjs";

const repo = new URL("../..", import.meta.url).pathname;
const dist = (p) => import(join(repo, "apps/routerd-bgp/dist", p));
const { GobgpClient } = await dist("gobgp/client.js");
const { gobgpdArgs } = await dist("gobgp/gobgpd.js");
const { desiredBgp } = await dist("gobgp/desired.js");
const { applyDesired, emptyApplied } = await dist("gobgp/apply.js");
const { parseBgpConfig } = await dist("config/config.js");

/** How often the bench asks gobgpd for its accepted count (each ask walks the 100k-path Adj-RIB-In once). */
export const POLL_MS = 50;

const quiet = { warn: () => undefined, info: () => undefined, debug: () => undefined };

/** Starts gobgpd in the router namespace, configured as routerd-bgp would (config: routerd-bgp's config JSON). */
export async function gobgpdAlone(lab, config, launch) {
  const dir = join(lab.dir, "gobgpd-alone");
  mkdirSync(dir, { recursive: true });
  const socket = join(dir, "gobgpd.sock");
  const log = openSync(join(dir, "gobgpd.log"), "w");
  const proc = launch(lab, ["gobgpd", ...gobgpdArgs(socket)], log);
  const client = new GobgpClient(socket);
  await client.waitReady(10_000);
  await applyDesired(client, desiredBgp(parseBgpConfig(JSON.parse(config)), new Map()), emptyApplied(), quiet);
  return {
    pids: () => ({ gobgpd: proc.pid }),
    /** Resolves with performance.now() once gobgpd has accepted n paths from the peer. */
    async loaded(n, timeoutMs) {
      const until = Date.now() + timeoutMs;
      for (;;) {
        const [peer] = await client.listPeers(PEER_IP);
        const accepted = (peer?.afiSafis ?? []).reduce((sum, a) => sum + Number(a.state?.accepted ?? 0), 0);
        if (accepted >= n) return performance.now();
        if (Date.now() > until) throw new Error(`gobgpd accepted ${accepted} of ${n}`);
        await sleep(POLL_MS);
      }
    },
    async stop() {
      client.close();
      proc.kill("SIGTERM");
      await new Promise((r) => (proc.exitCode !== null ? r() : proc.once("exit", r)));
    },
  };
}

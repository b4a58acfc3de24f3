// "gobgpd alone": the floor routerd-bgp stands on. The same gobgpd routerd-bgp runs (its command line,
// gobgpdArgs) given the same configuration through the same code (desiredBgp + applyDesired on the bench's
// routerd-bgp config), with nobody watching its events and no FIB: Established → gobgpd has accepted all N
// paths of the neighbor. Polled with ListPeer(neighbor) every POLL_MS: its `accepted` counter is O(1) in
// gobgpd, but ListPeer also counts `received` by walking the neighbor's Adj-RIB-In (O(N)), so the poll
// is kept coarse; it runs in gobgpd's main loop between two UPDATEs, so a count of N means all N were
// processed (Adj-RIB-In, policy, best path).
import { spawn } from "node:child_process";
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
const { WatchEventRequest } = await import(join(repo, "packages/gobgp-api/dist/gen/gobgp.js"));

/** How often the bench asks gobgpd for its accepted count (each ask walks the 100k-path Adj-RIB-In once). */
export const POLL_MS = 50;

const quiet = { warn: () => undefined, info: () => undefined, debug: () => undefined };

/**
 * What gobgpd's events cost it, without routerd-bgp's own work: a consumer that reads and discards them.
 * "watch": routerd-bgp's subscription (WatchEvent peer + ADJIN), messages not decoded. "bmp": a BMP station
 * (pre-policy route monitoring, which forwards each UPDATE as received) in the router namespace.
 */
async function consume(lab, client, kind, dir) {
  const seen = { messages: 0, bytes: 0, last: 0 };
  if (kind === "watch") {
    const req = { peer: {}, table: { filters: [{ type: 1, init: false }] } };
    const stream = client.raw.makeServerStreamRequest("/apipb.GobgpApi/WatchEvent", (v) => Buffer.from(WatchEventRequest.encode(v).finish()), (b) => b.length, req);
    stream.on("data", (n) => {
      seen.messages++;
      seen.bytes += n;
      seen.last = performance.now();
    });
    stream.on("error", () => undefined);
    return { seen, stop: () => stream.cancel() };
  }
  // BMP: gobgpd connects to a TCP station; a small node in the router namespace counts what arrives.
  const station = spawn("ip", ["netns", "exec", lab.r, process.execPath, "-e", BMP_STATION], { stdio: ["ignore", "pipe", "ignore"] });
  lab.procs.push(station);
  station.stdout.setEncoding("utf8");
  let ready;
  const listening = new Promise((r) => (ready = r));
  station.stdout.on("data", (d) => {
    for (const line of d.split("\n").filter(Boolean)) {
      if (line === "listening") ready();
      else {
        seen.messages++;
        seen.bytes = Number(line);
        seen.last = performance.now();
      }
    }
  });
  await listening;
  await new Promise((resolve, reject) =>
    client.raw.addBmp({ address: "127.0.0.1", port: BMP_PORT, policy: 0, StatisticsTimeout: 0, SysName: "bench", SysDescr: "" }, (e) => (e ? reject(e) : resolve())),
  );
  while (seen.messages === 0) await sleep(20); // the BMP initiation: gobgpd is connected
  return { seen, stop: () => station.kill() };
}

const BMP_PORT = 11019;
const BMP_STATION = `let n = 0; require("node:net").createServer((s) => s.on("data", (d) => { n += d.length; process.stdout.write(n + "\\n"); })).listen(${BMP_PORT}, "127.0.0.1", () => process.stdout.write("listening\\n"));`;

/**
 * Starts gobgpd in the router namespace, configured as routerd-bgp would (config: routerd-bgp's config JSON);
 * with a consumer ("watch" or "bmp") that discards its events.
 */
export async function gobgpdAlone(lab, config, launch, consumer) {
  const dir = join(lab.dir, "gobgpd-alone");
  mkdirSync(dir, { recursive: true });
  const socket = join(dir, "gobgpd.sock");
  const log = openSync(join(dir, "gobgpd.log"), "w");
  const proc = launch(lab, ["gobgpd", ...gobgpdArgs(socket)], log);
  const client = new GobgpClient(socket);
  await client.waitReady(10_000);
  await applyDesired(client, desiredBgp(parseBgpConfig(JSON.parse(config)), new Map()), emptyApplied(), quiet);
  const events = consumer === undefined ? undefined : await consume(lab, client, consumer, dir);
  return {
    pids: () => ({ gobgpd: proc.pid }),
    /** With a consumer: when its last event arrived (quiet for 500 ms after gobgpd accepted all), and how much. */
    async consumed() {
      if (events === undefined) return undefined;
      for (let last = -1; last !== events.seen.last; ) {
        last = events.seen.last;
        await sleep(500);
      }
      return { ...events.seen };
    },
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
      events?.stop();
      client.close();
      proc.kill("SIGTERM");
      await new Promise((r) => (proc.exitCode !== null ? r() : proc.once("exit", r)));
    },
  };
}

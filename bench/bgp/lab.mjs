// The benchmark's namespaces and its announcing peer: a gobgpd in its own namespace whose RIB is loaded
// with AddPathStream before any session exists, so every implementation under test receives the same
// full table the moment its session is Established.
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const repo = new URL("../..", import.meta.url).pathname;
const gen = await import(join(repo, "packages/gobgp-api/dist/gen/gobgp.js"));
const codec = await import(join(repo, "apps/routerd-bgp/dist/gobgp/codec.js"));
const grpc = await import("@grpc/grpc-js");

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
export const sh = (cmd, args, opts = {}) => execFileSync(cmd, args, { encoding: "utf8", stdio: ["pipe", "pipe", "pipe"], ...opts });

export const ROUTER_IP = "10.77.0.1";
export const PEER_IP = "10.77.0.2";
export const ROUTER_AS = 65001;
export const PEER_AS = 65002;

/** The i-th benchmark prefix: /24s from 16.0.0.0 up. */
export const prefixAt = (i) => `${16 + (i >> 16)}.${(i >> 8) & 255}.${i & 255}.0/24`;

/** Labs made and not yet destroyed: what a signal must remove (destroyLabsOnSignal). */
const liveLabs = new Set();

export function makeLab() {
  const id = `${process.pid.toString(36)}${Date.now().toString(36).slice(-4)}`;
  const lab = { id, r: `bgb-r-${id}`, p: `bgb-p-${id}`, dir: mkdtempSync(join(tmpdir(), "bgp-bench-")), procs: [] };
  liveLabs.add(lab);
  try {
    buildLab(lab);
  } catch (err) {
    destroyLab(lab);
    throw err;
  }
  return lab;
}

function buildLab(lab) {
  const { id } = lab;
  sh("ip", ["netns", "add", lab.r]);
  sh("ip", ["netns", "add", lab.p]);
  sh("ip", ["link", "add", `bgbr${id}`.slice(0, 15), "netns", lab.r, "type", "veth", "peer", "name", `bgbp${id}`.slice(0, 15), "netns", lab.p]);
  const inR = (...a) => sh("ip", ["netns", "exec", lab.r, ...a]);
  const inP = (...a) => sh("ip", ["netns", "exec", lab.p, ...a]);
  inR("ip", "addr", "add", `${ROUTER_IP}/24`, "dev", `bgbr${id}`.slice(0, 15));
  inR("ip", "link", "set", `bgbr${id}`.slice(0, 15), "up");
  inR("ip", "link", "set", "lo", "up");
  inP("ip", "addr", "add", `${PEER_IP}/24`, "dev", `bgbp${id}`.slice(0, 15));
  inP("ip", "link", "set", `bgbp${id}`.slice(0, 15), "up");
  inP("ip", "link", "set", "lo", "up");
  // A process in the router namespace: /proc/<pid>/net/fib_triestat is that namespace's FIB.
  const holder = spawn("ip", ["netns", "exec", lab.r, "sleep", "100000"], { stdio: "ignore" });
  lab.procs.push(holder);
  lab.fibPid = holder.pid;
  lab.inR = inR;
  lab.inP = inP;
}

export function destroyLab(lab) {
  liveLabs.delete(lab);
  for (const p of lab.procs) {
    try {
      process.kill(p.pid, "SIGKILL");
    } catch {}
  }
  for (const ns of [lab.r, lab.p]) {
    try {
      // Anything left in the namespace (a daemon that ignored its stop) goes with it.
      for (const pid of sh("ip", ["netns", "pids", ns]).split("\n").filter(Boolean)) process.kill(Number(pid), "SIGKILL");
    } catch {}
    try {
      sh("ip", ["netns", "del", ns]);
    } catch {}
  }
  rmSync(lab.dir, { recursive: true, force: true });
}

/**
 * A benchmark stopped from outside (Ctrl-C, a timeout's SIGTERM) removes every lab it still has: namespaces, the
 * processes in them and the lab's directory. For scripts that stop at once; churn.mjs stops its own loop instead.
 */
export function destroyLabsOnSignal() {
  for (const signal of ["SIGINT", "SIGTERM"]) {
    process.once(signal, () => {
      const labs = [...liveLabs];
      for (const lab of labs) destroyLab(lab);
      process.stderr.write(`${signal}: removed ${labs.length} lab(s)\n`);
      process.exit(130);
    });
  }
}

/** Main-table prefixes of the router namespace's IPv4 FIB (fib_triestat "Prefixes:" of the Main section). */
export function fibPrefixes(lab) {
  const text = readFileSync(`/proc/${lab.fibPid}/net/fib_triestat`, "utf8");
  const main = text.split(/\n(?=Local:|Main:)/).find((s) => s.startsWith("Main:"));
  return Number(/Prefixes:\s+(\d+)/.exec(main ?? "")?.[1] ?? 0);
}

export async function waitFib(lab, predicate, timeoutMs, pollMs = 5) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const n = fibPrefixes(lab);
    if (predicate(n)) return { at: performance.now(), n };
    if (Date.now() > until) throw new Error(`FIB did not reach the expected size (last ${n})`);
    await sleep(pollMs);
  }
}

/** ts-proto clients want complete messages: `type` names the request type for fromPartial. */
const unary = (client, method, type, req) =>
  new Promise((resolve, reject) => client[method](gen[type].fromPartial(req), (err, res) => (err ? reject(err) : resolve(res))));

/** The announcing peer: a gobgpd in lab.p with n prefixes in its RIB and no session yet. */
export async function startPeer(lab, n) {
  const sock = join(lab.dir, "peer.sock");
  const proc = spawn("ip", ["netns", "exec", lab.p, "gobgpd", `--api-hosts=unix://${sock}`, "--pprof-disable", "--log-level=warn"], { stdio: "ignore" });
  lab.procs.push(proc);
  const client = new gen.GobgpApiClient(`unix://${sock}`, grpc.credentials.createInsecure());
  await new Promise((resolve, reject) => client.waitForReady(new Date(Date.now() + 10_000), (e) => (e ? reject(e) : resolve())));
  await unary(client, "startBgp", "StartBgpRequest", { global: { asn: PEER_AS, routerId: PEER_IP, listenPort: 179, listenAddresses: [], families: [], useMultiplePaths: false, bindToDevice: "" } });
  const stream = client.addPathStream((err) => err && process.stderr.write(`addPathStream: ${err.message}\n`));
  const BATCH = 1000;
  for (let i = 0; i < n; i += BATCH) {
    const paths = [];
    for (let j = i; j < Math.min(n, i + BATCH); j++) paths.push(codec.announcedPath(prefixAt(j), PEER_IP, [PEER_AS]));
    if (!stream.write(gen.AddPathStreamRequest.fromPartial({ tableType: 0, vrfId: "", paths }))) await new Promise((r) => stream.once("drain", r));
  }
  await new Promise((r) => stream.end(r));
  // Wait until gobgpd holds all of them.
  for (;;) {
    const t = await unary(client, "getTable", "GetTableRequest", { tableType: 0, family: codec.FAMILY_IPV4, name: "" });
    if (Number(t.numDestination) >= n) break;
    await sleep(50);
  }
  const peer = {
    client,
    proc,
    /** Resolves with performance.now() when the session to the router is Established. */
    established() {
      return new Promise((resolve) => {
        const w = client.watchEvent(gen.WatchEventRequest.fromPartial({ peer: {} }));
        w.on("data", (ev) => {
          if (ev.peer?.peer?.state?.sessionState === 6) {
            resolve(performance.now());
            w.cancel();
          }
        });
        w.on("error", () => undefined);
      });
    },
    addNeighbor: () =>
      unary(client, "addPeer", "AddPeerRequest", {
        peer: { conf: { neighborAddress: ROUTER_IP, peerAsn: ROUTER_AS }, afiSafis: [{ config: { family: codec.FAMILY_IPV4, enabled: true } }] },
      }),
    deleteNeighbor: () => unary(client, "deletePeer", "DeletePeerRequest", { address: ROUTER_IP, interface: "" }),
    announce: (prefix) => unary(client, "addPath", "AddPathRequest", { tableType: 0, vrfId: "", path: codec.announcedPath(prefix, PEER_IP, [PEER_AS]) }),
    withdraw: (prefix) => unary(client, "deletePath", "DeletePathRequest", { tableType: 0, vrfId: "", family: codec.FAMILY_IPV4, path: { ...codec.announcedPath(prefix, PEER_IP, [PEER_AS]), isWithdraw: true }, uuid: Buffer.alloc(0) }),
    close: () => client.close(),
  };
  return peer;
}

export function procStats(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, "utf8");
    const hwm = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
    const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    // cutime + cstime: its children that ended and were reaped.
    return { peakRssMB: Math.round(hwm * 10) / 10, cpuS: (Number(f[11]) + Number(f[12])) / 100, endedChildrenCpuS: (Number(f[13]) + Number(f[14])) / 100 };
  } catch {
    return { peakRssMB: 0, cpuS: 0, endedChildrenCpuS: 0 };
  }
}

// How the testdata was captured: what gobgpd (Debian's 3.10) sends a BMP station — a live session (IPv4
// and IPv6 neighbors, 4-byte AS path, communities, MED, a large community, withdraws), the dump a second
// station gets on connecting (Peer Ups, one UPDATE per path, an End-of-RIB per family), a Peer Down and
// the Termination. Needs the build and root (namespaces bmpcap-r/-p):
//   node apps/routerd-bgp/src/bmp/testdata/capture.mjs OUTDIR && xxd -p OUTDIR/live.bin > gobgpd-3.10-live.hex
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { join } from "node:path";
const repo = new URL("../../../../..", import.meta.url).pathname;
const outDir = process.argv[2] ?? ".";
const dist = (p) => import(join(repo, "apps/routerd-bgp/dist", p));
const { GobgpClient } = await dist("gobgp/client.js");
const { gobgpdArgs } = await dist("gobgp/gobgpd.js");
const { desiredBgp } = await dist("gobgp/desired.js");
const { applyDesired, emptyApplied } = await dist("gobgp/apply.js");
const { parseBgpConfig } = await dist("config/config.js");
const sh = (c, a) => execFileSync(c, a, { encoding: "utf8" });
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const R = "bmpcap-r", P = "bmpcap-p";
const dir = mkdtempSync(join(outDir, "run-"));
const procs = [];
try {
  for (const ns of [R, P]) sh("ip", ["netns", "add", ns]);
  sh("ip", ["link", "add", "bmpc0", "netns", R, "type", "veth", "peer", "name", "bmpc1", "netns", P]);
  const inR = (...a) => sh("ip", ["netns", "exec", R, ...a]);
  const inP = (...a) => sh("ip", ["netns", "exec", P, ...a]);
  inR("ip", "addr", "add", "10.99.0.1/24", "dev", "bmpc0"); inR("ip", "addr", "add", "fd99::1/64", "dev", "bmpc0", "nodad");
  inP("ip", "addr", "add", "10.99.0.2/24", "dev", "bmpc1"); inP("ip", "addr", "add", "fd99::2/64", "dev", "bmpc1", "nodad");
  for (const [f, d] of [[inR, "bmpc0"], [inP, "bmpc1"]]) { f("ip", "link", "set", d, "up"); f("ip", "link", "set", "lo", "up"); }
  await sleep(1500);
  const rsock = join(dir, "r.sock"), psock = join(dir, "p.sock");
  procs.push(spawn("ip", ["netns", "exec", R, "gobgpd", ...gobgpdArgs(rsock, "debug")], { stdio: ["ignore", "ignore", "ignore"] }));
  procs.push(spawn("ip", ["netns", "exec", P, "gobgpd", `--api-hosts=unix://${psock}`, "--pprof-disable", "--log-level=warn"], { stdio: "ignore" }));
  const client = new GobgpClient(rsock);
  await client.waitReady(10000);
  const pcli = (...a) => inP("gobgp", "--target", `unix://${psock}`, ...a);
  for (let i = 0; i < 50; i++) { try { pcli("global"); break; } catch { await sleep(100); } }
  pcli("global", "as", "65002", "router-id", "10.99.0.2");
  pcli("global", "rib", "add", "172.30.1.0/24", "nexthop", "10.99.0.2", "aspath", "65002,4200000000", "community", "65002:7", "med", "50", "-a", "ipv4");
  pcli("global", "rib", "add", "172.30.2.0/24", "nexthop", "10.99.0.2", "aspath", "65002,4200000000", "community", "65002:7", "med", "50", "-a", "ipv4");
  pcli("global", "rib", "add", "172.30.3.0/25", "nexthop", "10.99.0.2", "large-community", "65002:1:2", "-a", "ipv4");
  pcli("global", "rib", "add", "2001:db8:99::/48", "nexthop", "fd99::2", "-a", "ipv6");
  pcli("global", "rib", "add", "2001:db8:98::/48", "nexthop", "fd99::2", "-a", "ipv6");
  const config = { router: { name: "cap", spec: { asn: 65001, routerID: "10.99.0.1", listen: { port: 0 }, timers: { profile: "fast" } } }, peers: [{ name: "p4", spec: { routerRef: "cap", peerASN: 65002, peers: ["10.99.0.2"] } }, { name: "p6", spec: { routerRef: "cap", peerASN: 65002, peers: ["fd99::2"] } }] };
  await applyDesired(client, desiredBgp(parseBgpConfig(config), new Map()), emptyApplied(), { warn() {}, info() {}, debug() {} });
  // station: logs each chunk with a timestamp to a file
  const station = (port, file) => {
    const code = `const fs=require("fs");const out=fs.openSync(${JSON.stringify(file)},"w");require("net").createServer((s)=>{process.stdout.write("conn\\n");s.on("data",(d)=>{fs.writeSync(out,d)});s.on("close",()=>process.stdout.write("closed\\n"))}).listen(${port},"127.0.0.1",()=>process.stdout.write("listening\\n"));`;
    const p = spawn("ip", ["netns", "exec", R, process.execPath, "-e", code], { stdio: ["ignore", "pipe", "inherit"] });
    procs.push(p);
    p.stdout.on("data", (d) => process.stdout.write(`station ${port}: ${d}`));
    return new Promise((r) => p.stdout.once("data", () => r(p)));
  };
  const addBmp = (port) => new Promise((res, rej) => client.raw.addBmp({ address: "127.0.0.1", port, policy: 0, StatisticsTimeout: 0, SysName: "cap", SysDescr: "" }, (e) => (e ? rej(e) : res())));
  const delBmp = (port) => new Promise((res, rej) => client.raw.deleteBmp({ address: "127.0.0.1", port }, (e) => (e ? rej(e) : res())));
  await station(11101, join(outDir, "live.bin"));
  await addBmp(11101);
  await sleep(1000);
  pcli("neighbor", "add", "10.99.0.1", "as", "65001");
  pcli("neighbor", "add", "fd99::1", "as", "65001");
  for (let i = 0; i < 100; i++) { const out = inR("gobgp", "--target", `unix://${rsock}`, "neighbor"); if ((out.match(/Establ/g) ?? []).length === 2) break; await sleep(200); }
  await sleep(2000);
  pcli("global", "rib", "del", "172.30.2.0/24", "-a", "ipv4");
  pcli("global", "rib", "del", "2001:db8:98::/48", "-a", "ipv6");
  await sleep(1000);
  console.log(inR("gobgp", "--target", `unix://${rsock}`, "neighbor"));
  // second station: init dump
  await station(11102, join(outDir, "init.bin"));
  await addBmp(11102);
  await sleep(2000);
  // peer down
  pcli("neighbor", "del", "10.99.0.1");
  await sleep(2000);
  await delBmp(11102);
  await sleep(1000);
  console.log(inR("gobgp", "--target", `unix://${rsock}`, "bmp"));
  client.close();
} finally {
  for (const p of procs) try { p.kill("SIGKILL"); } catch {}
  rmSync(dir, { recursive: true, force: true });
  for (const ns of [R, P]) { try { for (const pid of sh("ip", ["netns", "pids", ns]).split("\n").filter(Boolean)) process.kill(Number(pid), "SIGKILL"); } catch {} try { sh("ip", ["netns", "del", ns]); } catch {} }
}

// routerd-healthcheck as a real process in a router namespace with two uplinks to two ISP namespaces:
// outages seen through WatchEvents within interval × unhealthyThreshold + 1 s, recovery, probes bound to one
// uplink (fwmark, interface, source address) failing only with their uplink, malformed DNS replies,
// kill -9 and resume, and a SIGHUP reload.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { probeStates, watchTransitions, type ProbeTransition } from "@routerd/healthcheck";
import { HealthCheckResponse_ServingStatus, Phase, type DaemonConnection } from "@routerd/rpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO } from "../lib/netns.js";
import { Lab, TARGET } from "./topology.js";

const INTERVAL = 500;
const UNHEALTHY = 3;
const HEALTHY = 2;
const timing = { intervalMs: INTERVAL, timeoutMs: 300, healthyThreshold: HEALTHY, unhealthyThreshold: UNHEALTHY };

const PROBES = [
  { name: "isp1-icmp", type: "icmp", target: TARGET, fwmark: 0x101, ...timing },
  { name: "isp2-icmp", type: "icmp", target: TARGET, fwmark: 0x102, ...timing },
  { name: "isp1-src-icmp", type: "icmp", target: TARGET, sourceAddress: "10.201.1.2", ...timing },
  { name: "isp1-http", type: "http", target: TARGET, port: 8080, path: "/health", interface: "up1", ...timing },
  { name: "isp2-http", type: "http", target: TARGET, port: 8080, path: "/health", interface: "up2", ...timing },
  { name: "isp1-tcp", type: "tcp", target: TARGET, port: 8080, fwmark: 0x101, ...timing },
  { name: "isp1-dns", type: "dns", target: TARGET, query: { name: "probe.test", type: "A" }, fwmark: 0x101, ...timing },
  { name: "isp2-garbage-dns", type: "dns", target: TARGET, port: 5353, query: { name: "probe.test", type: "A" }, fwmark: 0x102, ...timing },
  { name: "default-icmp", type: "icmp", target: TARGET, ...timing },
];
const ISP1 = PROBES.map((p) => p.name).filter((n) => n.startsWith("isp1-"));
const STEADY = ["isp2-icmp", "isp2-http", "default-icmp"];

let lab: Lab;
let conn: DaemonConnection;
const seen: ProbeTransition[] = [];
let watch: AbortController;

function follow(afterSeq?: number): void {
  watch = new AbortController();
  void (async () => {
    for await (const t of watchTransitions(lab.socketPath, { signal: watch.signal, ...(afterSeq !== undefined ? { afterSeq } : {}) })) {
      seen.push({ ...t, time: new Date() }); // arrival time, for the deadline checks
    }
  })().catch(() => undefined);
}

async function until(what: string, check: () => boolean | Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; transitions: ${seen.map((t) => `${t.probe}:${t.from}>${t.to}`).join(" ")}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const states = (): Promise<Map<string, string>> => probeStates(lab.socketPath);
const pathSince = (name: string, since: number): string[] => seen.filter((t) => t.probe === name && t.time!.getTime() >= since).map((t) => `${t.from}>${t.to}`);

beforeAll(async () => {
  execFileSync(join(REPO, "node_modules/.bin/turbo"), ["run", "build", "--filter=@routerd/healthcheck", "--output-logs=errors-only"], { cwd: REPO, stdio: "pipe" });
  lab = new Lab();
  await lab.startPeers();
  lab.writeConfig(PROBES);
  conn = await lab.startDaemon();
  follow(0);
});

afterAll(async () => {
  watch?.abort();
  conn?.close();
  await lab?.destroy();
});

describe("routerd-healthcheck in a router namespace", () => {
  it("serves, and every reachable probe becomes Healthy; garbage DNS is Unhealthy and does not crash it", async () => {
    expect(await conn.checkHealth()).toBe(HealthCheckResponse_ServingStatus.SERVING);
    await until("steady states", async () => {
      const s = await states();
      return PROBES.every((p) => s.get(p.name) === (p.name === "isp2-garbage-dns" ? "Unhealthy" : "Healthy"));
    });
    const garbage = seen.find((t) => t.probe === "isp2-garbage-dns");
    expect(garbage).toMatchObject({ from: "Unknown", to: "Unhealthy", reason: "MalformedReply" });
    expect(garbage?.error).toMatch(/ignored \d+ bad datagram/);
    const st = await conn.getStatus();
    expect(st.phase).toBe(Phase.PHASE_RUNNING);
    expect(st.pid).toBe(lab.daemon!.child.pid);
  });

  it("isp1 going silent takes exactly the probes bound to uplink 1 Healthy → Failing → Unhealthy in time, and back", async () => {
    const down = Date.now();
    lab.blackout(lab.isp1);
    const deadline = INTERVAL * UNHEALTHY + 1000;
    await until("isp1 probes unhealthy", () => ISP1.every((n) => pathSince(n, down).includes("Failing>Unhealthy")), deadline + 5000);
    for (const name of ISP1) {
      expect(pathSince(name, down), name).toEqual(["Healthy>Failing", "Failing>Unhealthy"]);
      const unhealthy = seen.find((t) => t.probe === name && t.to === "Unhealthy" && t.time!.getTime() >= down)!;
      expect(unhealthy.time!.getTime() - down, `${name} became Unhealthy after`).toBeLessThanOrEqual(deadline);
      expect(unhealthy.usable).toBe(false);
    }
    expect(seen.find((t) => t.probe === "isp1-http" && t.to === "Unhealthy" && t.time!.getTime() >= down)?.reason).toBe("Timeout");
    // Uplink 2 is fine, and so is the probe that follows the main table (via isp2).
    for (const name of STEADY) expect(pathSince(name, down), name).toEqual([]);
    const s = await states();
    for (const name of STEADY) expect(s.get(name), name).toBe("Healthy");

    const up = Date.now();
    lab.restore(lab.isp1);
    await until("isp1 probes healthy", () => ISP1.every((n) => pathSince(n, up).includes("Passing>Healthy")), INTERVAL * HEALTHY + 6000);
    for (const name of ISP1) expect(pathSince(name, up), name).toEqual(["Unhealthy>Passing", "Passing>Healthy"]);
    for (const name of STEADY) expect(pathSince(name, down), name).toEqual([]);
  });

  it("after kill -9 a restart resumes every probe's state without new transitions", async () => {
    lab.blackout(lab.isp1);
    await until("isp1 probes unhealthy", async () => {
      const s = await states();
      return ISP1.every((n) => s.get(n) === "Unhealthy");
    });
    const before = await states();
    const saved = JSON.parse(readFileSync(join(lab.stateDir, "healthcheck", "default", "state.json"), "utf8")) as { data: { probes: Record<string, { machine: { state: string } }> } };
    expect(saved.data.probes["isp1-icmp"]!.machine.state).toBe("Unhealthy");
    watch.abort();
    conn.close();
    const lastSeq = seen.at(-1)!.seq;

    const old = lab.daemon!;
    old.child.kill("SIGKILL");
    await old.exited;
    conn = await lab.startDaemon();
    expect(lab.daemon!.output()).toContain('"msg":"removed stale socket"');
    expect(await states()).toEqual(before);
    const restarted = Date.now();
    follow(lastSeq);

    // A fresh start would show Unknown → ... for every probe within a few intervals; a resumed one does not.
    // (A probe on the loaded CI machine may blip Healthy → Failing → Healthy: that is not a restart artefact.)
    await new Promise((r) => setTimeout(r, INTERVAL * (UNHEALTHY + 1)));
    for (const p of PROBES) expect(pathSince(p.name, restarted).filter((x) => x.startsWith("Unknown>") || x.endsWith(">Unknown")), p.name).toEqual([]);
    const usable = (m: Map<string, string>) => new Map([...m].map(([k, v]) => [k, v === "Healthy" || v === "Failing"]));
    expect(usable(await states())).toEqual(usable(before));
    lab.restore(lab.isp1);
    await until("isp1 healthy after restart", () => ISP1.every((n) => pathSince(n, restarted).includes("Passing>Healthy")));
    for (const name of ISP1) expect(pathSince(name, restarted), name).toEqual(["Unhealthy>Passing", "Passing>Healthy"]);
  });

  it("SIGHUP re-reads the config: added and removed probes, untouched ones keep their state", async () => {
    const reload = Date.now();
    lab.writeConfig([...PROBES.filter((p) => p.name !== "default-icmp"), { name: "isp2-dns-down", type: "dns", target: "10.201.2.1", query: { name: "probe.test", type: "A" }, ...timing }]);
    lab.daemon!.child.kill("SIGHUP");
    await until("new probe unhealthy", async () => (await states()).get("isp2-dns-down") === "Unhealthy");
    const s = await states();
    expect(s.has("default-icmp")).toBe(false);
    expect(seen.find((t) => t.probe === "isp2-dns-down")).toMatchObject({ to: "Unhealthy", reason: "ConnectionRefused" });
    for (const p of PROBES.filter((p) => p.name !== "default-icmp")) expect(pathSince(p.name, reload), p.name).toEqual([]);
    expect(lab.daemon!.child.exitCode).toBeNull();
  });
});

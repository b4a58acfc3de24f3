// The daemon in-process on a real Unix socket (temp dirs), with scripted probe functions: state machine,
// events, status, the Probes service, the client helpers, reload, and resuming after a restart.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { status as grpcStatus } from "@grpc/grpc-js";
import { connectDaemon, HealthCheckResponse_ServingStatus, Phase } from "@routerd/rpc";
import { ProbeState as ProtoProbeState } from "@routerd/rpc/gen/routerd/healthcheck/v1/healthcheck";
import { pino } from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { getProbe, listProbes, probeStates, watchTransitions } from "./client.js";
import type { ProbeConfig, ProbeType } from "./config.js";
import { startHealthcheckDaemon, type HealthcheckDaemon } from "./daemon.js";
import { healthcheckSocketPath } from "./names.js";
import type { ProbeFn, ProbeOutcome } from "./probes/outcome.js";
import type { ProbeRegistry } from "./probes/registry.js";
import type { ProbeTransition } from "./transition-event.js";

type Behaviour = "up" | "down" | "hang" | "local-error";
const OUTCOME: Record<Exclude<Behaviour, "hang">, ProbeOutcome> = {
  up: { ok: true, latencyMs: 1.5 },
  down: { ok: false, reason: "ConnectionRefused", error: "connect ECONNREFUSED 192.0.2.1:80", latencyMs: 0.2 },
  "local-error": { ok: false, reason: "LocalError", error: "ping not found: install iputils-ping" },
};

const behaviour = new Map<string, Behaviour>();
const scripted: ProbeFn = (probe) => {
  const b = behaviour.get(probe.name) ?? "up";
  return b === "hang" ? new Promise(() => undefined) : Promise.resolve(OUTCOME[b]);
};
const registry: ProbeRegistry = Object.fromEntries((["icmp", "tcp", "http", "https", "dns"] as ProbeType[]).map((t) => [t, scripted])) as ProbeRegistry;

const probe = (name: string, over: Partial<ProbeConfig> = {}): ProbeConfig => ({
  name,
  type: "tcp",
  target: "192.0.2.1",
  port: 80,
  intervalMs: 100,
  timeoutMs: 50,
  healthyThreshold: 2,
  unhealthyThreshold: 3,
  ...over,
});

let dir: string;
let configPath: string;
let running: HealthcheckDaemon[] = [];
let watchers: AbortController[] = [];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "rd-hc-daemon-"));
  configPath = join(dir, "healthcheck.json");
  behaviour.clear();
});

afterEach(async () => {
  for (const w of watchers.splice(0)) w.abort();
  for (const d of running.splice(0)) await d.daemon.stop("test done");
  rmSync(dir, { recursive: true, force: true });
});

function writeConfig(probes: ProbeConfig[] | object): void {
  writeFileSync(configPath, JSON.stringify(Array.isArray(probes) ? { probes } : probes));
}

async function start(): Promise<HealthcheckDaemon> {
  const d = await startHealthcheckDaemon({
    configPath,
    runDir: join(dir, "run"),
    stateDir: join(dir, "state"),
    logger: pino({ level: "silent" }),
    handleSignals: false,
    manager: { probes: registry, graceMs: 50, staggerMs: 0 },
  });
  running.push(d);
  return d;
}

const socket = (): string => healthcheckSocketPath(join(dir, "run"));

/** Collects transitions in the background from `afterSeq` (0 = everything retained). */
function collect(afterSeq = 0): ProbeTransition[] {
  const seen: ProbeTransition[] = [];
  const controller = new AbortController();
  watchers.push(controller);
  void (async () => {
    for await (const t of watchTransitions(socket(), { afterSeq, signal: controller.signal })) seen.push(t);
  })().catch(() => undefined);
  return seen;
}

async function until<T>(what: string, get: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 5000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await get();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const path = (ts: ProbeTransition[], name: string): string[] => ts.filter((t) => t.probe === name).map((t) => `${t.from}>${t.to}`);

describe("routerd-healthcheck daemon (in-process)", () => {
  it("comes up, goes down and recovers, reporting through events, GetStatus and the Probes service", async () => {
    writeConfig([probe("isp1"), probe("isp2")]);
    await start();
    const seen = collect();
    await until("isp1 healthy", () => path(seen, "isp1").includes("Passing>Healthy"));
    expect(path(seen, "isp1")).toEqual(["Unknown>Passing", "Passing>Healthy"]);
    expect(await probeStates(socket())).toEqual(new Map([["isp1", "Healthy"], ["isp2", "Healthy"]]));

    behaviour.set("isp1", "down");
    await until("isp1 unhealthy", () => path(seen, "isp1").includes("Failing>Unhealthy"));
    const down = seen.filter((t) => t.probe === "isp1").slice(2);
    expect(down.map((t) => [t.from, t.to, t.reason, t.usable, t.error])).toEqual([
      ["Healthy", "Failing", "ConnectionRefused", true, "connect ECONNREFUSED 192.0.2.1:80"],
      ["Failing", "Unhealthy", "ConnectionRefused", false, "connect ECONNREFUSED 192.0.2.1:80"],
    ]);

    behaviour.set("isp1", "up");
    await until("isp1 healthy again", () => path(seen, "isp1").filter((p) => p === "Passing>Healthy").length === 2);
    expect(path(seen, "isp1").slice(4)).toEqual(["Unhealthy>Passing", "Passing>Healthy"]);
    expect(path(seen, "isp2")).toEqual(["Unknown>Passing", "Passing>Healthy"]);

    const conn = await connectDaemon(socket());
    try {
      const st = await conn.getStatus();
      expect(st.phase).toBe(Phase.PHASE_RUNNING);
      expect(await conn.checkHealth("routerd.healthcheck.v1.Probes")).toBe(HealthCheckResponse_ServingStatus.SERVING);
      const isp1 = st.resources.find((r) => r.name === "isp1")!;
      expect(isp1).toMatchObject({ kind: "HealthCheck", phase: "Healthy" });
      expect(isp1.conditions.find((c) => c.type === "Healthy")).toMatchObject({ status: 1 /* TRUE */, reason: "Healthy" });
      expect(JSON.parse(isp1.detailsJson)).toMatchObject({ type: "tcp", target: "192.0.2.1", port: 80, usable: true });
    } finally {
      conn.close();
    }

    const one = await getProbe(socket(), "isp1");
    expect(one).toMatchObject({ name: "isp1", state: ProtoProbeState.PROBE_STATE_HEALTHY, usable: true, resumed: false, stateReason: "Succeeded" });
    expect(one.counters!.totalFailures).toBeGreaterThanOrEqual(3);
    expect(one.history.length).toBeGreaterThan(5);
    expect(one.history.length).toBeLessThanOrEqual(20);
    expect(one.history.some((r) => !r.ok && r.reason === "ConnectionRefused")).toBe(true);
    expect(one.lastResult).toMatchObject({ ok: true, reason: "Succeeded", latencyMs: 1.5 });
    expect(one.spec).toMatchObject({ type: "tcp", target: "192.0.2.1", port: 80, intervalMs: 100, healthyThreshold: 2 });

    const all = await listProbes(socket());
    expect(all.map((p) => [p.name, p.history.length])).toEqual([["isp1", 0], ["isp2", 0]]);
    await expect(getProbe(socket(), "nope")).rejects.toMatchObject({ code: grpcStatus.NOT_FOUND });
  });

  it("keeps only the newest 20 results of a probe however long it runs; the counters go on", async () => {
    writeConfig([probe("isp1")]);
    await start();
    const one = await until("30 results", async () => {
      const p = await getProbe(socket(), "isp1");
      return Number(p.counters!.totalSuccesses) >= 30 && p;
    }, 15_000);
    expect(one.history).toHaveLength(20);
    expect(one.history.at(-1)).toEqual(one.lastResult);
    const times = one.history.map((r) => Number(r.time!.getTime()));
    expect(times).toEqual([...times].sort((a, b) => a - b));
  });

  it("a probe that hangs does not hold up another", async () => {
    behaviour.set("stuck", "hang");
    writeConfig([probe("stuck", { unhealthyThreshold: 2 }), probe("fine")]);
    await start();
    const seen = collect();
    await until("fine healthy and stuck unhealthy", () => path(seen, "fine").includes("Passing>Healthy") && path(seen, "stuck").includes("Unknown>Unhealthy"));
    expect(seen.find((t) => t.probe === "stuck")).toMatchObject({ to: "Unhealthy", reason: "Timeout" });
  });

  it("reload adds, removes, retargets and retimes probes; untouched ones keep running and keep their state", async () => {
    writeConfig([probe("keep"), probe("retime"), probe("retarget"), probe("drop")]);
    const d = await start();
    const seen = collect();
    await until("all healthy", () => ["keep", "retime", "retarget", "drop"].every((n) => path(seen, n).includes("Passing>Healthy")));
    const keepBefore = (await getProbe(socket(), "keep")).counters!.totalSuccesses;

    writeConfig([probe("keep"), probe("retime", { intervalMs: 200, unhealthyThreshold: 5 }), probe("retarget", { target: "192.0.2.2" }), probe("new")]);
    const conn = await connectDaemon(socket());
    try {
      expect(await conn.command("reload")).toMatchObject({ ok: true });
    } finally {
      conn.close();
    }
    await until("new and retarget healthy", () => path(seen, "new").includes("Passing>Healthy") && path(seen, "retarget").includes("Passing>Healthy"));

    expect(path(seen, "keep")).toEqual(["Unknown>Passing", "Passing>Healthy"]);
    expect(path(seen, "retime")).toEqual(["Unknown>Passing", "Passing>Healthy"]);
    expect(path(seen, "retarget")).toEqual(["Unknown>Passing", "Passing>Healthy", "Healthy>Unknown", "Unknown>Passing", "Passing>Healthy"]);
    expect(seen.find((t) => t.probe === "retarget" && t.to === "Unknown")?.reason).toBe("ConfigChanged");
    expect((await getProbe(socket(), "keep")).counters!.totalSuccesses).toBeGreaterThan(keepBefore);
    expect((await getProbe(socket(), "retime")).spec).toMatchObject({ intervalMs: 200, unhealthyThreshold: 5 });
    expect([...(await probeStates(socket())).keys()].sort()).toEqual(["keep", "new", "retarget", "retime"]);
    expect(d.manager.list().map((p) => p.name)).toEqual(["keep", "new", "retarget", "retime"]);
  });

  it("a bad config on reload is refused: Degraded, the old probes keep running, a good one recovers", async () => {
    writeConfig([probe("a")]);
    await start();
    const conn = await connectDaemon(socket());
    try {
      writeConfig({ probes: [{ ...probe("a"), port: 0 }], extra: true });
      const reply = await conn.command("reload");
      expect(reply.ok).toBe(false);
      expect(reply.message).toMatch(/probes\[0\] \(a\): port: must be an integer from 1 to 65535/);
      expect(reply.message).toMatch(/unknown field "extra"/);
      const st = await conn.getStatus();
      expect(st.phase).toBe(Phase.PHASE_DEGRADED);
      expect(st.conditions.find((c) => c.type === "ConfigLoaded")).toMatchObject({ status: 2 /* FALSE */, reason: "Invalid" });
      expect((await probeStates(socket())).has("a")).toBe(true);

      writeConfig([probe("a")]);
      expect(await conn.command("reload")).toMatchObject({ ok: true });
      expect((await conn.getStatus()).phase).toBe(Phase.PHASE_RUNNING);
    } finally {
      conn.close();
    }
  });

  it("a probe that cannot run here degrades the daemon instead of hiding it", async () => {
    behaviour.set("noping", "local-error");
    writeConfig([probe("noping", { type: "icmp", port: undefined }), probe("ok")]);
    await start();
    const conn = await connectDaemon(socket());
    try {
      const status = await until("degraded", async () => {
        const st = await conn.getStatus();
        return st.phase === Phase.PHASE_DEGRADED && st;
      });
      expect(status.conditions.find((c) => c.type === "ProbesRunnable")).toMatchObject({ reason: "LocalError", message: "noping: ping not found: install iputils-ping" });
    } finally {
      conn.close();
    }
  });

  it("a restart resumes each probe's state; a probe whose target changed meanwhile starts over", async () => {
    writeConfig([probe("stay"), probe("moved"), probe("down", { unhealthyThreshold: 2 })]);
    behaviour.set("down", "down");
    const first = await start();
    const seen = collect();
    await until("settled", () => path(seen, "stay").includes("Passing>Healthy") && path(seen, "moved").includes("Passing>Healthy") && path(seen, "down").includes("Unknown>Unhealthy"));
    await first.daemon.stop("restart");
    running = [];
    const lastSeq = seen.at(-1)!.seq;

    // "stay" now hangs for longer than the test looks, so what we see is the resumed state, not a new result.
    writeConfig([probe("stay", { intervalMs: 10_000, timeoutMs: 9_000 }), probe("moved", { target: "192.0.2.77" }), probe("down", { unhealthyThreshold: 2 })]);
    behaviour.set("stay", "hang");
    const second = await start();
    expect((await probeStates(socket())).get("stay")).toBe("Healthy");
    const stay = await getProbe(socket(), "stay");
    expect(stay).toMatchObject({ state: ProtoProbeState.PROBE_STATE_HEALTHY, resumed: true, usable: true });
    expect(second.manager.get("down")?.machine.state).toBe("Unhealthy");

    const after = collect(lastSeq);
    await until("moved healthy", () => path(after, "moved").includes("Passing>Healthy"));
    expect(path(after, "moved")).toEqual(["Healthy>Unknown", "Unknown>Passing", "Passing>Healthy"]);
    expect(after.find((t) => t.probe === "moved")?.reason).toBe("ConfigChanged");
    expect(path(after, "stay")).toEqual([]);
    expect(path(after, "down")).toEqual([]);
  });
});

// serve's early start of session daemons: which configs start them, the write-ahead ledger record made before
// the spawn, the pid file the supervisor re-attaches through, and no second copy of a running daemon. The
// daemon program is a stand-in (ROUTERD_DAEMON_DIR): a script that sleeps, so no pppd is dialed here.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadConfig, PPPOE_CLIENT_DAEMON, type RouterConfig } from "@routerd/api";
import { pidAlive, readLedger } from "@routerd/resource";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { earlySpecs, startEarlyDaemons } from "./early-start.js";
import { runningDaemonPid } from "./supervisor.js";

const dir = mkdtempSync(join(tmpdir(), "rd-early-start-"));
const program = join(dir, "daemons", `routerd-${PPPOE_CLIENT_DAEMON}`, "bin", `routerd-${PPPOE_CLIENT_DAEMON}.js`);
mkdirSync(join(program, ".."), { recursive: true });
writeFileSync(program, "setTimeout(() => undefined, 60_000);\n");
chmodSync(program, 0o755);
const savedDaemonDir = process.env.ROUTERD_DAEMON_DIR;
process.env.ROUTERD_DAEMON_DIR = join(dir, "daemons");

const started: number[] = [];
let n = 0;
function dirsFor(): { runDir: string; stateDir: string; root: string } {
  const base = join(dir, `case-${n++}`);
  return { runDir: join(base, "run"), stateDir: join(base, "state"), root: join(base, "root") };
}

const res = (kind: string, name: string, spec: Record<string, unknown>) => ({ apiVersion: "net.routerd.net/v1alpha1", kind, metadata: { name }, spec });
function yaml(extra: Record<string, unknown>[] = []): string {
  const resources = [res("Interface", "wan", { ifname: "lo" }), res("PPPoESession", "isp", { interface: "wan", username: "alice", password: "secret" }), ...extra];
  return JSON.stringify({ apiVersion: "routerd.net/v1alpha1", kind: "Router", metadata: { name: "t" }, spec: { resources } });
}
function parsed(text: string): RouterConfig {
  const r = loadConfig(text, "router.yaml");
  if (!r.config) throw new Error(JSON.stringify(r.issues));
  return r.config;
}
function configFile(text: string): string {
  const path = join(dir, `router-${n++}.yaml`);
  writeFileSync(path, text);
  return path;
}

afterEach(() => {
  for (const pid of started.splice(0)) if (pidAlive(pid)) process.kill(pid, "SIGKILL");
});
afterAll(() => {
  if (savedDaemonDir === undefined) delete process.env.ROUTERD_DAEMON_DIR;
  else process.env.ROUTERD_DAEMON_DIR = savedDaemonDir;
  rmSync(dir, { recursive: true, force: true });
});

describe("earlySpecs", () => {
  it("gives the PPPoE session's daemon when its link is up, and nothing when it is down", () => {
    const config = parsed(yaml());
    const up = earlySpecs(config, dirsFor(), () => true);
    expect(up.specs.map((s) => `${s.daemon}/${s.instance}`)).toEqual([`${PPPOE_CLIENT_DAEMON}/isp`]);
    expect(JSON.parse(up.specs[0]!.config!.content)).toMatchObject({ interface: "lo", username: "alice" });
    const down = earlySpecs(config, dirsFor(), () => false);
    expect(down.specs).toEqual([]);
    expect(down.skipped).toContain("link down");
  });

  it("starts nothing for a cluster member or with an ObservabilityPipeline", () => {
    const cluster = parsed(yaml([{ apiVersion: "system.routerd.net/v1alpha1", kind: "RouterdCluster", metadata: { name: "c" }, spec: { leasePath: "/tmp/lease" } }]));
    const r = earlySpecs(cluster, dirsFor(), () => true);
    expect(r.specs).toEqual([]);
    expect(r.skipped).toContain("RouterdCluster/c");
  });
});

describe("startEarlyDaemons", () => {
  it("records the daemon as pending and created, then starts it with a pid file; a second start leaves it alone", () => {
    const dirs = dirsFor();
    const text = yaml();
    const path = configFile(text);
    const first = startEarlyDaemons(path, dirs);
    expect(first.started).toHaveLength(1);
    expect(first.text).toBe(text);
    expect(first.config?.resources.map((r) => r.kind)).toContain("PPPoESession");
    const entry = readLedger(dirs.stateDir).get("routerd.daemon", `${PPPOE_CLIENT_DAEMON}/isp`);
    expect(entry).toMatchObject({ ownership: "created", state: "pending", owners: [expect.stringContaining("PPPoESession")] });
    const [spec] = earlySpecs(parsed(text), dirs, () => true).specs;
    const pid = runningDaemonPid(dirs.runDir, spec!);
    expect(pid).toBeGreaterThan(0);
    started.push(pid!);
    expect(readFileSync(spec!.config!.path, "utf8")).toBe(spec!.config!.content);

    const again = startEarlyDaemons(path, dirs);
    expect(again.started).toEqual([]);
    expect(again.skipped).toBe("session daemons already running");
    expect(runningDaemonPid(dirs.runDir, spec!)).toBe(pid);
  });

  it("starts nothing while a change waits for confirmation, or for an invalid config", () => {
    const dirs = dirsFor();
    mkdirSync(join(dirs.stateDir, "generations"), { recursive: true });
    writeFileSync(join(dirs.stateDir, "generations", "pending.json"), JSON.stringify({ id: "x" }));
    const held = startEarlyDaemons(configFile(yaml()), dirs);
    expect(held).toMatchObject({ started: [], skipped: "a change waits for confirmation" });
    expect(existsSync(join(dirs.runDir, PPPOE_CLIENT_DAEMON))).toBe(false);

    const invalid = startEarlyDaemons(configFile("spec: [unclosed"), dirsFor());
    expect(invalid).toMatchObject({ started: [], skipped: "config invalid" });
  });
});

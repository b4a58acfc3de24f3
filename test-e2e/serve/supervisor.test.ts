// The built-in supervisor with a real daemon process (daemon-kit's echo daemon): restart after kill -9
// with state resumed, and re-attachment without duplicates when the supervisor itself restarts.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { connectDaemon } from "@routerd/rpc";
import { pino } from "pino";
import { afterAll, describe, expect, it } from "vitest";
import { spawn } from "node:child_process";
import { companionsDir, pidAlive, processMatches, writeCompanionRecord } from "@routerd/daemon-kit";
import { Supervisor, isZombie, type DaemonSpec } from "../../apps/routerd/src/serve/supervisor.js";
import { REPO, tempDir } from "../lib/netns.js";

const tmp = tempDir("routerd-sup-");
const dirs = { runDir: join(tmp.dir, "run"), stateDir: join(tmp.dir, "state") };
const logger = pino({ level: "silent" });
const spec: DaemonSpec = {
  daemon: "echo",
  instance: "one",
  command: [process.execPath, join(REPO, "packages/daemon-kit/dist/testing/echo-daemon.js"), "--name", "echo", "--instance", "one", "--run-dir", dirs.runDir, "--state-dir", dirs.stateDir],
  match: join(REPO, "packages/daemon-kit/dist/testing/echo-daemon.js"),
};
const supervisors: Supervisor[] = [];
afterAll(async () => {
  await supervisors[supervisors.length - 1]?.stopAll();
  tmp.cleanup();
});

const pidOf = () => (JSON.parse(readFileSync(join(dirs.runDir, "echo", "one.pid"), "utf8")) as { pid: number }).pid;
const socket = join(dirs.runDir, "echo", "one.sock");

async function until<T>(what: string, fn: () => Promise<T | undefined> | T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const v = await fn();
      if (v !== undefined && v !== false) return v;
    } catch {
      /* not yet */
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function count(): Promise<number> {
  const c = await connectDaemon(socket, { connectTimeoutMs: 1000 });
  try {
    return Number((await c.command("count")).message);
  } finally {
    c.close();
  }
}

function echoProcesses(): number {
  let n = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmd = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (cmd.includes("echo-daemon.js") && cmd.includes(dirs.runDir)) n++;
    } catch {
      /* gone */
    }
  }
  return n;
}

describe("built-in supervisor", () => {
  it("restarts a daemon killed with -9, and the daemon resumes its state", async () => {
    const sup = new Supervisor(dirs, logger);
    supervisors.push(sup);
    sup.start(100);
    sup.ensure(spec);
    const first = await until("first start", async () => ((await count()) === 1 ? pidOf() : undefined));
    expect(await count()).toBe(2);
    process.kill(first, "SIGKILL");
    const second = await until("restart", () => (pidOf() !== first && pidAlive(pidOf()) ? pidOf() : undefined));
    expect(second).not.toBe(first);
    expect(await until("restarted daemon answers", () => count())).toBe(3);
    expect(sup.running()[0]?.restarts).toBe(1);
  });

  it("re-attaches to the running daemon after the supervisor restarts, without starting a duplicate", async () => {
    const old = supervisors[supervisors.length - 1]!;
    const pid = pidOf();
    old.detach(); // like kill -9 of routerd serve: the daemon keeps running
    const sup = new Supervisor(dirs, logger);
    supervisors.push(sup);
    sup.start(100);
    sup.ensure(spec);
    await new Promise((r) => setTimeout(r, 600));
    expect(pidOf()).toBe(pid);
    expect(sup.running()[0]?.pid).toBe(pid);
    expect(echoProcesses()).toBe(1);
    expect(await count()).toBe(4);
  });

  it("removes a daemon with its socket and state directory", async () => {
    const sup = supervisors[supervisors.length - 1]!;
    const pid = pidOf();
    await sup.remove("echo", "one", true);
    // Terminated: gone, or a zombie its parent (this test process, which started it) has not reaped yet.
    expect(pidAlive(pid) && !isZombie(pid)).toBe(false);
    expect(existsSync(socket)).toBe(false);
    expect(existsSync(join(dirs.stateDir, "echo", "one"))).toBe(false);
    expect(echoProcesses()).toBe(0);
  });

  it("removing a daemon that was killed also stops the companions it recorded", async () => {
    const sup = new Supervisor(dirs, logger);
    supervisors.push(sup);
    sup.start(100);
    sup.ensure(spec);
    const pid = await until("daemon start", async () => ((await count()) >= 1 ? pidOf() : undefined));
    // A companion like routerd-bgp's gobgpd: detached, recorded under the daemon's state dir.
    const match = `companion-of-${tmp.dir}`;
    const child = spawn("/bin/sh", ["-c", "while :; do sleep 1; done", match], { detached: true, stdio: "ignore" });
    child.unref();
    writeCompanionRecord(join(companionsDir(join(dirs.stateDir, "echo", "one")), "fake.pid"), { pid: child.pid!, match });
    process.kill(pid, "SIGKILL"); // the daemon cannot stop its companion itself
    await sup.remove("echo", "one", true);
    expect(processMatches(child.pid!, match)).toBe(false);
    expect(existsSync(join(dirs.stateDir, "echo", "one"))).toBe(false);
  });
});

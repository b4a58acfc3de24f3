// Companions against real processes (a /bin/sh loop standing in for gobgpd): the parent-death wrapper, a
// stale one stopped before a new one starts, a kept one re-attached, a foreign process never touched.
import { spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { processMatches, writeCompanionRecord } from "@routerd/daemon-kit";
import pino from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { CompanionProcess, companionCommand, findSetpriv, isCompanion, processStartedAt } from "./companion.js";

const LOOP = "while :; do sleep 0.2; done";
const started: ChildProcess[] = [];
const dirs: string[] = [];
const companions: CompanionProcess[] = [];

/** A process like the companion (same program, its match word in the cmdline), started by the test. */
function loop(match: string): number {
  const child = spawn("/bin/sh", ["-c", LOOP, match], { stdio: "ignore" });
  started.push(child);
  return child.pid!;
}

function companion(match: string, recordDir: string, keep = false): CompanionProcess {
  const c = new CompanionProcess({ name: "fake", binary: "/bin/sh", args: ["-c", LOOP, match], match, recordDir, logFile: join(recordDir, "fake.log"), logger: pino({ level: "silent" }), keep });
  companions.push(c);
  return c;
}

const until = async (what: () => boolean, ms = 5000) => {
  for (const end = Date.now() + ms; Date.now() < end; await new Promise((r) => setTimeout(r, 50))) if (what()) return true;
  return what();
};

afterEach(async () => {
  for (const c of companions.splice(0)) await c.stop(500);
  for (const child of started.splice(0)) child.kill("SIGKILL");
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "routerd-bgp-companion-"));
  dirs.push(d);
  return d;
}

describe("companion command line", () => {
  it("runs under setpriv --pdeathsig KILL unless kept or without setpriv", () => {
    expect(companionCommand("gobgpd", ["-x"], { keep: false, setpriv: "/usr/bin/setpriv" })).toEqual({ command: "/usr/bin/setpriv", argv: ["--pdeathsig", "KILL", "--", "gobgpd", "-x"] });
    expect(companionCommand("gobgpd", ["-x"], { keep: true, setpriv: "/usr/bin/setpriv" })).toEqual({ command: "gobgpd", argv: ["-x"] });
    expect(companionCommand("gobgpd", ["-x"], { keep: false, setpriv: undefined })).toEqual({ command: "gobgpd", argv: ["-x"] });
    expect(findSetpriv("/nonexistent-dir")).toBeUndefined();
  });
});

describe("a companion found running at start", () => {
  it("is ours only with our program and our match word in its cmdline", () => {
    const match = `m-${randomUUID()}`;
    const pid = loop(match);
    expect(isCompanion(pid, "/bin/sh", match)).toBe(true);
    expect(isCompanion(pid, "/usr/bin/gobgpd", match)).toBe(false);
    expect(isCompanion(pid, "/bin/sh", `m-${randomUUID()}`)).toBe(false);
  });

  it("stale (not kept): stopped, then exactly one new one started", async () => {
    const dir = tempDir();
    const match = `m-${randomUUID()}`;
    const stale = loop(match);
    writeCompanionRecord(join(dir, "fake.pid"), { pid: stale, match });
    const c = companion(match, dir);
    expect(await c.start()).toBe(false);
    expect(processMatches(stale, match)).toBe(false);
    expect(c.pid).not.toBe(stale);
    expect(isCompanion(c.pid!, "/bin/sh", match)).toBe(true);
    expect(c.staleStopped).toBe(1);
  });

  it("kept on purpose: re-attached, not restarted", async () => {
    const dir = tempDir();
    const match = `m-${randomUUID()}`;
    const kept = loop(match);
    const spawnedAt = Date.now();
    writeCompanionRecord(join(dir, "fake.pid"), { pid: kept, match, kept: true });
    await new Promise((r) => setTimeout(r, 1500));
    const c = companion(match, dir, true);
    expect(await c.start()).toBe(true);
    expect(c.pid).toBe(kept);
    expect(c.staleStopped).toBe(0);
    // When it really started (/proc; btime has whole seconds), not when we attached: a re-attach judges gobgpd's age by it.
    expect(Math.abs(c.since! - spawnedAt)).toBeLessThan(1100);
  });

  it("a record naming a foreign process (pid reused, other program or other instance) never stops it", async () => {
    const dir = tempDir();
    const match = `m-${randomUUID()}`;
    const foreign = loop(`m-${randomUUID()}`);
    writeCompanionRecord(join(dir, "fake.pid"), { pid: foreign, match });
    const c = companion(match, dir);
    expect(await c.start()).toBe(false);
    expect(c.staleStopped).toBe(0);
    expect(await until(() => isCompanion(c.pid!, "/bin/sh", match))).toBe(true);
    expect(processMatches(foreign, "sleep")).toBe(true);
  });

  it("started under setpriv, it dies with the process that started it", async () => {
    if (findSetpriv() === undefined) return expect(findSetpriv()).toBeUndefined();
    const dir = tempDir();
    const match = `m-${randomUUID()}`;
    // A parent of its own (this test runner must survive): a node process that starts the companion and exits.
    const script = `
      const { CompanionProcess } = await import(${JSON.stringify(new URL("./companion.js", import.meta.url).href.replace(/\/src\//, "/dist/"))});
      const pino = (await import("pino")).default;
      const c = new CompanionProcess({ name: "fake", binary: "/bin/sh", args: ["-c", ${JSON.stringify(LOOP)}, ${JSON.stringify(match)}], match: ${JSON.stringify(match)}, recordDir: ${JSON.stringify(dir)}, logFile: ${JSON.stringify(join(dir, "fake.log"))}, logger: pino({ level: "silent" }) });
      await c.start();
      process.stdout.write(String(c.pid));
      process.kill(process.pid, "SIGKILL");
    `;
    const parent = spawn(process.execPath, ["--input-type=module", "-e", script], { cwd: join(import.meta.dirname, ".."), stdio: ["ignore", "pipe", "inherit"] });
    started.push(parent);
    let out = "";
    parent.stdout!.on("data", (d: Buffer) => (out += d.toString()));
    await new Promise((r) => parent.once("exit", r));
    const pid = Number(out);
    expect(pid).toBeGreaterThan(0);
    expect(await until(() => !processMatches(pid, match))).toBe(true);
  });
});

describe("processStartedAt", () => {
  it("reads a process's start time from /proc, undefined for no such process", () => {
    const mine = processStartedAt(process.pid)!;
    expect(Math.abs(mine - (Date.now() - process.uptime() * 1000))).toBeLessThan(1100);
    expect(processStartedAt(2 ** 22 + 1)).toBeUndefined();
  });
});

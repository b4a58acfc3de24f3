import { describe, expect, it } from "vitest";
import { spawnSync } from "node:child_process";
import { existsSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { tmpdir } from "node:os";
import { runJson, sweepDeadOutputFiles, systemRunner } from "./exec.js";

// 300,000 bytes: several times a pipe's 64 KiB buffer.
const BIG = ["-c", "seq -f '%099g' 1 3000"];

describe("systemRunner", () => {
  it("captures large output through a temporary file exactly as through a pipe", async () => {
    const piped = await systemRunner.run("sh", BIG);
    const filed = await systemRunner.run("sh", BIG, { largeOutput: true });
    expect(piped.code).toBe(0);
    expect(filed.code).toBe(0);
    expect(filed.stdout.length).toBe(300_000);
    expect(filed.stdout).toBe(piped.stdout);
  });

  it("leaves no temporary file behind, also when the command fails", async () => {
    const before = readdirSync(tmpdir()).filter((f) => f.startsWith(`.routerd-out-${process.pid}-`));
    const r = await systemRunner.run("sh", ["-c", "echo partial; echo oops >&2; exit 3"], { largeOutput: true });
    expect(r).toEqual({ code: 3, stdout: "partial\n", stderr: "oops\n" });
    expect(readdirSync(tmpdir()).filter((f) => f.startsWith(`.routerd-out-${process.pid}-`))).toEqual(before);
  });

  it("removes output files a killed process left behind, and only those", () => {
    // A pid that has certainly exited: a child that ran and was reaped.
    const deadPid = spawnSync("true").pid;
    const dead = join(tmpdir(), `.routerd-out-${deadPid}-000000000000`);
    const living = join(tmpdir(), `.routerd-out-${process.ppid}-000000000000`);
    writeFileSync(dead, "");
    writeFileSync(living, "");
    try {
      sweepDeadOutputFiles();
      expect(existsSync(dead)).toBe(false);
      expect(existsSync(living)).toBe(true);
    } finally {
      for (const f of [dead, living]) rmSync(f, { force: true });
    }
  });

  it("reports a missing command as exit 127 with a clear message", async () => {
    const r = await systemRunner.run("routerd-no-such-command", [], { largeOutput: true });
    expect(r.code).toBe(127);
    expect(r.stderr).toContain("not installed");
  });

  it("runJson parses large JSON output", async () => {
    const list = await runJson<number[]>(systemRunner, "sh", ["-c", "printf '['; seq -s, 0 20000; printf ']'"]);
    expect(list).toHaveLength(20001);
    expect(list[20000]).toBe(20000);
  });
});

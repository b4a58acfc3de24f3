import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, statSync, writeFileSync, writeSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { capDaemonLog } from "./daemon-log.js";

const dirs: string[] = [];
const tempLog = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "routerd-daemon-log-"));
  dirs.push(dir);
  return join(dir, "daemon.log");
};
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe("capDaemonLog", () => {
  it("leaves a log at or under the limit alone, and a missing one too", () => {
    const log = tempLog();
    expect(capDaemonLog(log, 10)).toBe(false);
    writeFileSync(log, "0123456789");
    expect(capDaemonLog(log, 10)).toBe(false);
    expect(readFileSync(log, "utf8")).toBe("0123456789");
  });

  it("keeps the log within the limit however much a writer appends: one copy of the last full log", () => {
    const log = tempLog();
    // The daemon's side: one descriptor opened for appending, never reopened (as the supervisor gives it).
    const fd = openSync(log, "a");
    try {
      for (let i = 0; i < 500; i++) {
        writeSync(fd, `line ${i} ${"x".repeat(50)}\n`);
        capDaemonLog(log, 1000);
        expect(statSync(log).size).toBeLessThanOrEqual(1000);
      }
    } finally {
      closeSync(fd);
    }
    const previous = readFileSync(`${log}.1`, "utf8");
    expect(previous.length).toBeGreaterThan(1000);
    expect(previous.length).toBeLessThanOrEqual(1000 + 60);
    // Appending goes on at the start of the emptied file, not at the old offset (no hole of zeros).
    expect(readFileSync(log, "utf8")).not.toContain("\0");
    expect(readFileSync(log, "utf8").split("\n").at(-2)).toMatch(/^line 499 /);
  });
});

import { mkdtempSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { FileLease, pollEvery, refreshEvery, validFor } from "./lease.js";

let dir: string;
let now = 0;
const clock = () => now;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "lease-"));
  now = 1_000_000;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const timing = { ttlMs: 15_000 };

describe("FileLease", () => {
  it("has exactly one leader; the standby sees who holds it", () => {
    const a = new FileLease(join(dir, "lease"), "a", timing, clock);
    const b = new FileLease(join(dir, "lease"), "b", timing, clock);
    expect(a.tick().role).toBe("leader");
    expect(b.tick()).toEqual({ role: "standby", holder: "a" });
    expect(FileLease.inspect(join(dir, "lease"))?.holder).toBe("a");
  });

  it("lets the standby take over within one ttl of the leader's death", () => {
    const a = new FileLease(join(dir, "lease"), "a", timing, clock);
    const b = new FileLease(join(dir, "lease"), "b", timing, clock);
    a.tick(); // a's last refresh; it dies right after
    const died = now;
    while (b.tick().role !== "leader") now += pollEvery(timing);
    expect(now - died).toBeLessThanOrEqual(timing.ttlMs);
    expect(validFor(timing) + pollEvery(timing)).toBeLessThan(timing.ttlMs);
  });

  it("fences the leader when the lease was taken, and when refreshes stop working", () => {
    const path = join(dir, "lease");
    const a = new FileLease(path, "a", timing, clock);
    a.tick();
    now += validFor(timing) + 1;
    const b = new FileLease(path, "b", timing, clock);
    expect(b.tick().role).toBe("leader");
    expect(a.tick()).toMatchObject({ role: "fenced", reason: "lease taken by b" });

    const c = new FileLease(join(dir, "sub", "lease"), "c", timing, clock);
    expect(c.tick().role).toBe("leader");
    chmodSync(join(dir, "sub"), 0o500); // the next write fails
    const c2 = new FileLease(join(dir, "sub", "lease"), "c", timing, clock);
    // A leader whose refresh fails (no write permission for non-root; simulate with a held lock otherwise).
    writeFileSync(join(dir, "sub", "lease.lock"), `${process.ppid}\n`);
    now += refreshEvery(timing);
    expect(c.tick().role).toBe("fenced");
    expect(c2.isLeader()).toBe(false);
    chmodSync(join(dir, "sub"), 0o700);
  });

  it("stops being leader by itself once the lease lapsed without a refresh", () => {
    const a = new FileLease(join(dir, "lease"), "a", timing, clock);
    a.tick();
    now += validFor(timing);
    expect(a.isLeader()).toBe(false);
    expect(a.current.role).toBe("fenced");
  });

  it("releases on graceful stop so another node leads at once", () => {
    const a = new FileLease(join(dir, "lease"), "a", timing, clock);
    const b = new FileLease(join(dir, "lease"), "b", timing, clock);
    a.tick();
    a.release();
    expect(b.tick().role).toBe("leader");
  });
});

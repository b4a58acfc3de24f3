import { spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { confirmPending } from "./confirm.js";
import { bootId, dueAt, readPending, refuseWhilePending, writePending, type PendingConfirmation } from "./pending.js";
import { GenerationStore, appliedBy } from "@routerd/resource";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "routerd-pending-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** A pid that existed and is gone. */
const deadPid = () => spawnSync(process.execPath, ["-e", "0"]).pid!;

function pending(over: Partial<PendingConfirmation> = {}): PendingConfirmation {
  return { version: 1, id: "p1", digest: "sha256:x", revertTo: 1, withinMs: 5000, createdAt: "2025-01-01T00:00:00.000Z", applier: { pid: process.pid }, appliedBy: appliedBy("routerd apply", { SUDO_USER: "ops" }), ...over };
}

describe("when a pending change is due", () => {
  it("counts from the apply's end once the deadline is set", () => {
    expect(dueAt(pending({ deadline: "2025-01-01T00:01:00.000Z" }))).toBe(Date.parse("2025-01-01T00:01:00.000Z"));
  });
  it("waits while the applying process is still running", () => {
    expect(dueAt(pending())).toBeUndefined();
  });
  it("counts from the start when the applier died before setting the deadline (kill -9 mid-apply)", () => {
    expect(dueAt(pending({ applier: { pid: deadPid() } }))).toBe(Date.parse("2025-01-01T00:00:05.000Z"));
  });
  it("treats an applier from an earlier boot as gone (its pid may be someone else now)", () => {
    if (!bootId()) return; // not Linux
    expect(dueAt(pending({ applier: { pid: process.pid, bootId: "another-boot" } }))).toBe(Date.parse("2025-01-01T00:00:05.000Z"));
  });
});

describe("refusing and confirming", () => {
  it("refuses a second change with who applied the first and how to resolve it", () => {
    writePending(dir, pending({ generation: 2, deadline: "2025-01-01T00:01:00.000Z" }));
    expect(() => refuseWhilePending(dir)).toThrow("refusing to apply: generation 2, applied by ops@");
    try {
      refuseWhilePending(dir);
    } catch (err) {
      expect((err as { hint: string }).hint).toContain("routerd confirm");
    }
  });

  it("confirms before the deadline and records it on the generation", () => {
    const store = new GenerationStore(dir);
    store.record({ config: "a\n", appliedBy: appliedBy("x", {}), result: { ok: true, created: 0, updated: 0, deleted: 0 } });
    store.record({ config: "b\n", appliedBy: appliedBy("x", {}), result: { ok: true, created: 0, updated: 0, deleted: 0 } });
    writePending(dir, pending({ generation: 2, deadline: new Date(Date.now() + 60_000).toISOString() }));
    expect(confirmPending(dir)).toEqual({ state: "confirmed", generation: 2 });
    expect(readPending(dir)).toBeUndefined();
    expect(store.require(2).confirmation?.state).toBe("confirmed");
    expect(confirmPending(dir).state).toBe("nothing-pending");
  });

  it("honours a deadline that has passed: too late, the revert stands", () => {
    writePending(dir, pending({ generation: 2, deadline: new Date(Date.now() - 1).toISOString() }));
    expect(confirmPending(dir).state).toBe("too-late");
    expect(readPending(dir)).toBeDefined();
  });
});

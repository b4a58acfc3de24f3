import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { DaemonContext } from "@routerd/daemon-kit";
import { writePending, type PendingConfirmation } from "../generations/pending.js";
import { appliedBy } from "@routerd/resource";
import { ServeGenerations } from "./confirm.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "routerd-serve-confirm-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const writeAhead: PendingConfirmation = { version: 1, id: "p1", digest: "sha256:x", revertTo: 1, withinMs: 60_000, createdAt: new Date().toISOString(), applier: { pid: process.pid }, appliedBy: appliedBy("routerd apply", {}) };
const events: Array<{ topic: string }> = [];
const ctx = { events: { emit: (e: { topic: string }) => events.push(e) } } as unknown as DaemonContext;
const neverReconcile = () => Promise.reject(new Error("nothing is due"));

describe("serve and a pending confirmation", () => {
  it("notices when the apply it saw write-ahead finished, so status shows the generation and deadline", async () => {
    const g = new ServeGenerations(dir, join(dir, "config.yaml"), pino({ level: "silent" }));
    writePending(dir, writeAhead);
    expect(g.pendingChanged()).toBe(true);
    expect(await g.tick(ctx, "x", neverReconcile)).toBe("hold");
    expect(g.details()).toMatchObject({ generation: null, deadline: null });
    expect(g.pendingChanged()).toBe(false);

    const deadline = new Date(Date.now() + 60_000).toISOString();
    writePending(dir, { ...writeAhead, generation: 2, deadline });
    expect(g.pendingChanged()).toBe(true); // the same id, but now with its deadline: serve runs a cycle at once
    await g.tick(ctx, "x", neverReconcile);
    expect(g.details()).toMatchObject({ generation: 2, revertTo: 1, deadline });
    expect(g.pendingChanged()).toBe(false);
    expect(events.filter((e) => e.topic === "confirm.pending")).toHaveLength(1); // one pending change, announced once
  });
});

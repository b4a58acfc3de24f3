// The race at the deadline, without a host: the revert plans ahead, then waits; a confirmation that
// arrives before the deadline wins and nothing is applied. (The engine itself is exercised on real
// kernels in test-e2e/generations.)
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ReconcileResult } from "../core/engine.js";
import { confirmPending } from "./confirm.js";
import { readPending, writePending } from "./pending.js";
import { PLAN_AHEAD_MS, revertIfDue, type Reverter } from "./revert.js";
import { GenerationStore, appliedBy } from "@routerd/resource";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "routerd-revert-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const A = "apiVersion: routerd.net/v1alpha1\nkind: Router\nmetadata: { name: a }\nspec:\n  resources: []\n";
const B = A.replace("name: a", "name: b");

/** Records A and B as generations 1 and 2 and leaves 2 pending with the given deadline. */
function setUp(deadline: number): string {
  const store = new GenerationStore(dir);
  const by = appliedBy("routerd apply", {});
  const ok = { ok: true, created: 0, updated: 0, deleted: 0 };
  const configPath = join(dir, "router.yaml");
  writeFileSync(configPath, B);
  store.record({ config: A, appliedBy: by, result: ok });
  store.record({ config: B, appliedBy: by, result: ok, configPath });
  writePending(dir, { version: 1, id: "x", generation: 2, digest: store.require(2).digest, revertTo: 1, configPath, withinMs: 5000, createdAt: new Date().toISOString(), deadline: new Date(deadline).toISOString(), applier: { pid: process.pid }, appliedBy: by });
  return configPath;
}

/** Stands in for the engine: records what it was asked to apply once beforeApply allows it. */
function reverter(applied: string[]): Reverter {
  return {
    stateDir: dir,
    command: "test",
    async reconcile(config, _allowEmpty, beforeApply) {
      const go = await beforeApply();
      if (go) applied.push(config.name);
      return { ok: true, changed: go, results: [], plan: { summary: { create: 0, update: 0, delete: 0 } }, ...(go ? {} : { abandoned: true }) } as unknown as ReconcileResult;
    },
  };
}

describe("revertIfDue", () => {
  it("does nothing before it is time to plan", async () => {
    setUp(Date.now() + PLAN_AHEAD_MS + 5000);
    const applied: string[] = [];
    expect(await revertIfDue(reverter(applied))).toBeUndefined();
    expect(applied).toEqual([]);
  });

  it("plans ahead, applies at the deadline, restores the file and records the revert", async () => {
    const deadline = Date.now() + 300;
    const configPath = setUp(deadline);
    const applied: string[] = [];
    const outcome = await revertIfDue(reverter(applied));
    expect(Date.now()).toBeGreaterThanOrEqual(deadline);
    expect(applied).toEqual(["a"]);
    expect(outcome).toMatchObject({ to: 1, recorded: { created: true, generation: 3 }, configFile: { path: configPath, written: true } });
    expect(readFileSync(configPath, "utf8")).toBe(A);
    expect(readPending(dir)).toBeUndefined();
    expect(new GenerationStore(dir).require(2).confirmation?.state).toBe("reverted");
  });

  it("lets a confirmation that arrives while it waits for the deadline win: nothing is applied", async () => {
    const configPath = setUp(Date.now() + 600);
    const applied: string[] = [];
    const reverting = revertIfDue(reverter(applied));
    await new Promise((r) => setTimeout(r, 100)); // the revert has planned and waits for the deadline
    expect(confirmPending(dir)).toEqual({ state: "confirmed", generation: 2 });
    expect(await reverting).toBeUndefined();
    expect(applied).toEqual([]);
    expect(readFileSync(configPath, "utf8")).toBe(B);
    expect(new GenerationStore(dir).require(2).confirmation?.state).toBe("confirmed");
  });
});

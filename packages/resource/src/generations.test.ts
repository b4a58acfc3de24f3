import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { GenerationStore, appliedBy, configDigest, parseKeep } from "./generations.js";

let dir: string;
let store: GenerationStore;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "routerd-generations-"));
  store = new GenerationStore(dir);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const input = (config: string, reason?: string) => ({ config, appliedBy: appliedBy("routerd apply", {}), result: { ok: true, created: 1, updated: 0, deleted: 0 }, ...(reason ? { reason } : {}) });

describe("GenerationStore", () => {
  it("numbers generations, stores the text, its digest and who applied it", () => {
    const first = store.record(input("a: 1\n"), { now: new Date("2025-01-02T03:04:05Z") });
    expect(first.created).toBe(true);
    expect(store.require(1)).toMatchObject({ generation: 1, createdAt: "2025-01-02T03:04:05.000Z", digest: configDigest("a: 1\n"), config: "a: 1\n", appliedBy: { command: "routerd apply" } });
    expect(store.record(input("a: 2\n")).generation).toBe(2);
    expect(store.list().map((g) => g.generation)).toEqual([1, 2]);
    expect(store.list()[0]).not.toHaveProperty("config");
  });

  it("adds nothing when the config is the newest generation already", () => {
    store.record(input("a: 1\n"));
    const again = store.record(input("a: 1\n"));
    expect(again).toEqual({ created: false, generation: 1, digest: configDigest("a: 1\n") });
    // Going back to an older text is a new generation (the history stays linear).
    store.record(input("a: 2\n"));
    expect(store.record(input("a: 1\n", "rollback to generation 1")).generation).toBe(3);
    expect(store.require(3).reason).toBe("rollback to generation 1");
  });

  it("prunes to the newest N, sparing the generation a pending revert needs", () => {
    for (let i = 1; i <= 6; i++) store.record(input(`a: ${i}\n`), { keep: 3, protect: 2 });
    expect(store.numbers()).toEqual([2, 4, 5, 6]);
    store.record(input("a: 7\n"), { keep: 3 });
    expect(store.numbers()).toEqual([5, 6, 7]);
    expect(readdirSync(join(dir, "generations")).filter((f) => f.endsWith(".tmp"))).toEqual([]);
  });

  it("explains a missing generation with the ones kept", () => {
    store.record(input("a: 1\n"));
    expect(() => store.require(4)).toThrow(/there is no generation 4/);
    try {
      store.require(4);
    } catch (err) {
      expect((err as { hint: string }).hint).toContain("generations kept: 1");
    }
  });

  it("updates only the confirmation state of a generation", () => {
    store.record(input("a: 1\n"));
    store.setConfirmation(1, { state: "confirmed", at: "2025-01-01T00:00:00.000Z" });
    expect(store.require(1)).toMatchObject({ config: "a: 1\n", confirmation: { state: "confirmed" } });
  });

  it("records the SSH client and the sudo user", () => {
    expect(appliedBy("routerd apply", { SUDO_USER: "alice", SSH_CONNECTION: "192.0.2.7 50000 192.0.2.1 22" })).toMatchObject({ user: "alice", from: "192.0.2.7" });
  });

  it("rejects a generation count that is not a positive whole number", () => {
    expect(parseKeep("5")).toBe(5);
    expect(() => parseKeep("0")).toThrow(/--keep-generations 0/);
    expect(() => parseKeep("x")).toThrow(/positive whole number/);
  });
});

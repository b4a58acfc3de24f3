import { describe, expect, it } from "vitest";
import type { HostContext } from "./context.js";
import type { CommandResult, CommandRunner, RunOptions } from "./exec.js";
import { NAME_HINTED_KINDS, observeInventory, prefetchInventory, topicsOfKinds } from "./inventory.js";
import { TopicCache } from "./resident/cache.js";

/** A runner that answers `ip -j route` and `ip -j rule` from canned output and records every call. */
function fakeHost(answers: Record<string, CommandResult>): { ctx: HostContext; calls: string[] } {
  const calls: string[] = [];
  const runner: CommandRunner = {
    async run(command: string, args: readonly string[], _options?: RunOptions) {
      const line = [command, ...args].join(" ");
      calls.push(line);
      return answers[line] ?? { code: 1, stdout: "", stderr: `unexpected command ${line}` };
    },
  };
  return { ctx: { root: "/", stateDir: "/nonexistent", runDir: "/nonexistent", runner }, calls };
}

const ROUTES = "ip -j -4 route show table all";
const RULES = "ip -j -4 rule show";
const ok = (stdout: string): CommandResult => ({ code: 0, stdout, stderr: "" });

describe("prefetchInventory", () => {
  it("starts the bulk sources at once, and observeInventory uses them instead of running the commands again", async () => {
    const { ctx, calls } = fakeHost({
      [ROUTES]: ok(JSON.stringify([{ dst: "10.1.0.0/24", gateway: "10.0.0.1", dev: "eth0" }])),
      [RULES]: ok(JSON.stringify([{ priority: 100, fwmark: "0x101", table: "101" }])),
    });
    const prefetch = prefetchInventory(ctx, ["linux.ipv4.route", "linux.ipv4.fwmarkRule"]);
    expect(calls.sort()).toEqual([ROUTES, RULES].sort());

    const inventory = await observeInventory(ctx, ["linux.ipv4.route", "linux.ipv4.routeTable", "linux.ipv4.fwmarkRule"], new Map(), prefetch);
    expect(calls).toHaveLength(2);
    const routes = inventory.get("linux.ipv4.route");
    expect(routes?.status).toBe("known");
    expect(routes?.status === "known" && [...routes.items.keys()]).toEqual(["table=254,dst=10.1.0.0/24,metric=0"]);
    expect(inventory.get("linux.ipv4.fwmarkRule")?.status).toBe("known");
  });

  it("runs a source again when it was not prefetched", async () => {
    const { ctx, calls } = fakeHost({ [ROUTES]: ok("[]"), [RULES]: ok("[]") });
    const prefetch = prefetchInventory(ctx, ["linux.ipv4.fwmarkRule"]);
    await observeInventory(ctx, ["linux.ipv4.route", "linux.ipv4.fwmarkRule"], new Map(), prefetch);
    expect(calls.filter((c) => c === RULES)).toHaveLength(1);
    expect(calls.filter((c) => c === ROUTES)).toHaveLength(1);
  });

  it("a prefetched source that fails makes its kinds unknown, and nobody asking for it is not an error", async () => {
    const { ctx } = fakeHost({ [ROUTES]: { code: 2, stdout: "", stderr: "RTNETLINK answers: Operation not permitted" } });
    const unused = prefetchInventory(ctx, ["linux.ipv4.fwmarkRule"]); // fails too (no answer), never awaited
    const prefetch = prefetchInventory(ctx, ["linux.ipv4.route"]);
    const inventory = await observeInventory(ctx, ["linux.ipv4.route"], new Map(), prefetch);
    const routes = inventory.get("linux.ipv4.route");
    expect(routes?.status).toBe("unknown");
    expect(routes?.status === "unknown" && routes.reason).toContain("Operation not permitted");
    expect(unused.size).toBe(1);
  });

  it("never prefetches sources that read only the names they are given", () => {
    const { ctx, calls } = fakeHost({});
    const prefetch = prefetchInventory(ctx, [...NAME_HINTED_KINDS]);
    expect(prefetch.size).toBe(0);
    expect(calls).toEqual([]);
    expect([...NAME_HINTED_KINDS]).toEqual(expect.arrayContaining(["linux.sysctl", "file", "routerd.daemon", "routerd.lease"]));
  });
});

describe("observeInventory with a resident cache", () => {
  it("answers watched sources from the cache until their topic changes, and reads the others every time", async () => {
    const { ctx, calls } = fakeHost({ [ROUTES]: ok("[]"), [RULES]: ok("[]"), "nft -j list ruleset": ok(JSON.stringify({ nftables: [] })) });
    const cache = new TopicCache({ resyncEveryMs: 60_000, now: Date.now });
    cache.setLive(true);
    const kinds = ["linux.ipv4.route", "linux.ipv4.fwmarkRule", "nft.table"] as const;
    const count = (line: string) => calls.filter((c) => c === line).length;
    await observeInventory(ctx, kinds, new Map(), prefetchInventory(ctx, kinds, cache), cache);
    const second = await observeInventory(ctx, kinds, new Map(), undefined, cache);
    expect([count(ROUTES), count(RULES)]).toEqual([1, 1]);
    expect(count("nft -j list ruleset")).toBe(2); // nothing notifies nft changes: read every run
    expect(second.get("linux.ipv4.route")?.status).toBe("known");
    cache.invalidate(topicsOfKinds(["linux.ipv4.fwmarkRule"]));
    await observeInventory(ctx, kinds, new Map(), undefined, cache);
    expect([count(ROUTES), count(RULES)]).toEqual([1, 2]);
  });

  it("maps kinds to the topics that announce their changes; kinds without notifications have none", () => {
    expect([...topicsOfKinds(["linux.ipv4.routeTable", "linux.link"])].sort()).toEqual(["ipv4.route", "link"]);
    expect([...topicsOfKinds(["nft.table", "linux.sysctl", "file"])]).toEqual([]);
  });
});

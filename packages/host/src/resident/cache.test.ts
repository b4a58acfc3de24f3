import { describe, expect, it } from "vitest";
import { TopicCache, withImplied } from "./cache.js";

function setup(resyncEveryMs = 60_000) {
  let now = 1_000;
  const cache = new TopicCache({ resyncEveryMs, now: () => now });
  let loads = 0;
  const load = (value: string) => async () => {
    loads++;
    return value;
  };
  return { cache, load, loads: () => loads, advance: (ms: number) => (now += ms) };
}

describe("TopicCache", () => {
  it("reads every time while not live, and keeps nothing", async () => {
    const t = setup();
    await t.cache.read("routes", ["ipv4.route"], t.load("a"));
    await t.cache.read("routes", ["ipv4.route"], t.load("b"));
    expect(t.loads()).toBe(2);
    t.cache.setLive(true);
    expect(await t.cache.read("routes", ["ipv4.route"], t.load("c"))).toBe("c"); // nothing kept from before live
    expect(t.loads()).toBe(3);
  });

  it("reuses a reading while live and nothing changed; reads again after its topic changed", async () => {
    const t = setup();
    t.cache.setLive(true);
    expect(await t.cache.read("routes", ["ipv4.route"], t.load("a"))).toBe("a");
    expect(await t.cache.read("routes", ["ipv4.route"], t.load("b"))).toBe("a");
    t.cache.invalidate(["ipv6.route", "link"]); // other topics: still valid
    expect(await t.cache.read("routes", ["ipv4.route"], t.load("c"))).toBe("a");
    t.cache.invalidate(["ipv4.route"]);
    expect(await t.cache.read("routes", ["ipv4.route"], t.load("d"))).toBe("d");
    expect(t.cache.counters).toMatchObject({ hits: 2, reads: 2 });
  });

  it("does not keep a reading during which its topic changed, but gives it to the run that asked", async () => {
    const t = setup();
    t.cache.setLive(true);
    let release!: (v: string) => void;
    const pending = t.cache.read("addrs", ["ipv4.address"], () => new Promise<string>((r) => (release = r)));
    t.cache.invalidate(["ipv4.address"]); // a notification while `ip addr` runs
    release("old");
    expect(await pending).toBe("old");
    expect(await t.cache.read("addrs", ["ipv4.address"], t.load("new"))).toBe("new");
    expect(await t.cache.read("addrs", ["ipv4.address"], t.load("newer"))).toBe("new");
  });

  it("shares a reading under way with a second caller, unless something changed since it started", async () => {
    const t = setup();
    t.cache.setLive(true);
    let release!: (v: string) => void;
    const first = t.cache.read("links", ["link"], () => new Promise<string>((r) => (release = r)));
    const second = t.cache.read("links", ["link"], t.load("x"));
    expect(t.loads()).toBe(0);
    t.cache.invalidate(["link"]);
    const third = t.cache.read("links", ["link"], t.load("fresh"));
    release("shared");
    expect([await first, await second, await third]).toEqual(["shared", "shared", "fresh"]);
  });

  it("never keeps a failed reading", async () => {
    const t = setup();
    t.cache.setLive(true);
    await expect(t.cache.read("rules", ["rule"], async () => Promise.reject(new Error("ip failed")))).rejects.toThrow("ip failed");
    expect(await t.cache.read("rules", ["rule"], t.load("ok"))).toBe("ok");
  });

  it("reads everything afresh after the resync period, after invalidateAll, and when the feed stops", async () => {
    const t = setup(60_000);
    t.cache.setLive(true);
    await t.cache.read("routes", ["ipv4.route"], t.load("a"));
    t.advance(59_000);
    expect(await t.cache.read("routes", ["ipv4.route"], t.load("b"))).toBe("a");
    t.advance(2_000);
    expect(await t.cache.read("routes", ["ipv4.route"], t.load("c"))).toBe("c");
    t.cache.invalidateAll();
    expect(await t.cache.read("routes", ["ipv4.route"], t.load("d"))).toBe("d");
    t.cache.setLive(false);
    t.cache.setLive(true);
    expect(await t.cache.read("routes", ["ipv4.route"], t.load("e"))).toBe("e");
  });

  it("does not keep a reading that started before the feed went down and up again", async () => {
    const t = setup();
    t.cache.setLive(true);
    let release!: (v: string) => void;
    const pending = t.cache.read("routes", ["ipv4.route"], () => new Promise<string>((r) => (release = r)));
    t.cache.setLive(false);
    t.cache.setLive(true);
    release("maybe stale");
    await pending;
    expect(await t.cache.read("routes", ["ipv4.route"], t.load("fresh"))).toBe("fresh");
  });
});

describe("withImplied", () => {
  it("widens a link change to its addresses and routes, an address change to its family's routes", () => {
    expect([...withImplied(["link"])].sort()).toEqual(["ipv4.address", "ipv4.route", "ipv6.address", "ipv6.route", "link"]);
    expect([...withImplied(["ipv4.address"])].sort()).toEqual(["ipv4.address", "ipv4.route"]);
    expect([...withImplied(["rule", "ipv6.route"])].sort()).toEqual(["ipv6.route", "rule"]);
  });
});

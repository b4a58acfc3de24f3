import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { ResidentInventory } from "./resident.js";

/** A stand-in for `ip monitor` running `script` (subscribed at once). */
function fakeMonitor(script: string) {
  return { command: process.execPath, argv: ["-e", script], isSubscribed: () => true, readyTimeoutMs: 5000 };
}

/**
 * A stand-in that does what the test tells it through files in `dir`: "line" is printed on stdout, "err" on
 * stderr, "exit" ends it with that code.
 */
function scriptedMonitor(dir: string) {
  return fakeMonitor(`
    const fs = require("node:fs"), p = (f) => require("node:path").join(${JSON.stringify(dir)}, f);
    const take = (f) => { try { const t = fs.readFileSync(p(f), "utf8"); fs.rmSync(p(f)); return t; } catch { return undefined; } };
    setInterval(() => {
      const line = take("line"); if (line !== undefined) console.log(line);
      const err = take("err"); if (err !== undefined) console.error(err);
      const exit = take("exit"); if (exit !== undefined) process.exit(Number(exit));
    }, 20);`);
}

describe("ResidentInventory", () => {
  it("goes live once the monitor runs, forgets what a notification names, and falls back to full reads when the monitor ends", async () => {
    const states: [boolean, string][] = [];
    const dir = mkdtempSync(join(tmpdir(), "resident-test-"));
    const resident = new ResidentInventory({
      monitor: scriptedMonitor(dir),
      maxRestartDelayMs: 60_000,
      onState: (live, reason) => states.push([live, reason]),
    });
    let reads = 0;
    const routes = () => resident.cache.read("routes", ["ipv4.route"], async () => ++reads);
    const links = () => resident.cache.read("links", ["link"], async () => "links");
    try {
      resident.start();
      await vi.waitFor(() => expect(resident.state().live).toBe(true), { timeout: 5000 });
      expect(await routes()).toBe(1);
      expect(await routes()).toBe(1); // kept
      await links();
      writeFileSync(join(dir, "line"), "[ROUTE]10.1.0.0/24 via 10.0.0.1 dev eth0 ");
      await vi.waitFor(async () => expect(await routes()).toBe(2), { timeout: 5000 }); // the notification
      expect(await links()).toBe("links");
      writeFileSync(join(dir, "exit"), "0"); // as a monitor someone killed
      await vi.waitFor(() => expect(resident.state().live).toBe(false), { timeout: 5000 });
      expect(resident.state().reason).toMatch(/monitor ended \(exit 0\)/);
      expect(states.at(-1)![1]).toMatch(/full observations until the monitor runs again/);
      // Not live: every observation reads the host.
      const before = reads;
      await routes();
      await routes();
      expect(reads).toBe(before + 2);
    } finally {
      resident.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("starts the monitor again after it ended, with a growing delay", async () => {
    const resident = new ResidentInventory({ monitor: fakeMonitor(`setTimeout(() => process.exit(3), 200);`), maxRestartDelayMs: 50 });
    try {
      resident.start();
      await vi.waitFor(() => expect(resident.state().monitorStarts).toBeGreaterThanOrEqual(3), { timeout: 10_000 });
    } finally {
      resident.stop();
    }
    expect(resident.state().live).toBe(false);
  });

  it("is never live when the monitor cannot be started (no ip on this system)", async () => {
    const resident = new ResidentInventory({ monitor: { command: "/nonexistent/ip", isSubscribed: () => true }, maxRestartDelayMs: 60_000 });
    try {
      resident.start();
      await vi.waitFor(() => expect(resident.state().reason).toMatch(/could not start|ENOENT/), { timeout: 5000 });
      expect(resident.state().live).toBe(false);
    } finally {
      resident.stop();
    }
  });

  it("treats anything the monitor prints on stderr (a netlink overflow) as a reason to read everything again", async () => {
    const dir = mkdtempSync(join(tmpdir(), "resident-test-"));
    const resident = new ResidentInventory({ monitor: scriptedMonitor(dir), maxRestartDelayMs: 60_000 });
    try {
      resident.start();
      await vi.waitFor(() => expect(resident.state().live).toBe(true), { timeout: 5000 });
      writeFileSync(join(dir, "err"), "netlink receive error No buffer space available (105)");
      await vi.waitFor(() => expect(resident.state().reason).toMatch(/No buffer space/), { timeout: 5000 });
      expect(resident.state().live).toBe(false);
    } finally {
      resident.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("forgets what its own changes touched, with what they imply", async () => {
    const resident = new ResidentInventory({ monitor: fakeMonitor(`setInterval(() => {}, 1000);`) });
    let n = 0;
    const addrs = () => resident.cache.read("addrs", ["ipv4.address"], async () => ++n);
    const routes = () => resident.cache.read("routes", ["ipv4.route"], async () => ++n);
    try {
      resident.start();
      await vi.waitFor(() => expect(resident.state().live).toBe(true), { timeout: 5000 });
      const [a, r] = [await addrs(), await routes()];
      resident.touched(["linux.ipv4.route"]);
      expect(await addrs()).toBe(a);
      expect(await routes()).not.toBe(r);
      resident.touched(["linux.ipv4.address"]); // an address takes its prefix route along
      expect(await addrs()).not.toBe(a);
      const r2 = await routes();
      expect(r2).toBeGreaterThan(r);
      resident.touched(["nft.table"]); // nothing watched
      expect(await routes()).toBe(r2);
    } finally {
      resident.stop();
    }
  });
});

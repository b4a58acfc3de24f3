import pino from "pino";
import { describe, expect, it } from "vitest";
import { IpWriter, type IpBatch } from "./ip-batch.js";
import { FibProgrammer } from "./programmer.js";
import type { FibWriter } from "./writer.js";

// The programmer's choice between lines and a flush; the lines and the flush themselves run against a real
// kernel in test-e2e/bgp (routerd-bgp.test.ts, bfd.test.ts) and bench/bgp.
function programmer() {
  const submitted: string[][] = [];
  let flushes = 0;
  const batch = { submitText: async (text: string) => (submitted.push(text.split("\n").filter(Boolean)), { failed: new Map() }), close: () => undefined } as unknown as IpBatch;
  const fib = new FibProgrammer({ target: { protocol: 219, table: 254, metric: 20 }, logger: pino({ level: "silent" }), writer: new IpWriter(batch), flush: async () => void flushes++ });
  return { fib, submitted, flushes: () => flushes };
}

const routes = (n: number) => Array.from({ length: n }, (_, i) => ({ prefix: `10.${i >> 8}.${i & 255}.0/24`, hops: "192.0.2.2", metric: 20 }));

describe("FIB programmer: bulk withdraw", () => {
  it("flushes once when nothing is wanted any more (the only session lost), and writes lines again after", async () => {
    const { fib, submitted, flushes } = programmer();
    await fib.loadKernel(routes(1500));
    for (const r of routes(1500)) fib.update(r.prefix, "");
    await fib.idle();
    expect(flushes()).toBe(1);
    expect(submitted).toEqual([]);
    expect(fib.stats).toMatchObject({ installed: 0, flushes: 1 });
    fib.update("10.0.0.0/24", "192.0.2.3");
    await fib.idle();
    expect(submitted).toEqual([["route replace 10.0.0.0/24 proto 219 metric 20 table 254 via 192.0.2.3"]]);
  });

  it("never flushes with a writer whose deletes go in bulk anyway (netlink): every route is one delete", async () => {
    const deletes: string[] = [];
    const writer = {
      kind: "netlink",
      draining: false,
      flushesInBulk: false,
      chunk: () => {
        let count = 0;
        return {
          replace: () => void count++,
          delete: (prefix: string) => void (deletes.push(prefix), count++),
          get count() {
            return count;
          },
          submit: async () => ({ failed: new Map() }),
        };
      },
      close: () => undefined,
    } satisfies FibWriter;
    let flushes = 0;
    const fib = new FibProgrammer({ target: { protocol: 219, table: 254, metric: 20 }, logger: pino({ level: "silent" }), writer, flush: async () => void flushes++ });
    await fib.loadKernel(routes(1500));
    for (const r of routes(1500)) fib.update(r.prefix, "");
    await fib.idle();
    expect(flushes).toBe(0);
    expect(deletes).toHaveLength(1500);
    expect(fib.stats).toMatchObject({ installed: 0, flushes: 0, writes: 1500 });
  });

  it("deletes line by line when something stays, and never flushes on a few marks at start", async () => {
    const { fib, submitted, flushes } = programmer();
    await fib.loadKernel(routes(3));
    fib.update("10.0.0.0/24", "");
    fib.update("10.0.1.0/24", "");
    await fib.idle();
    expect(flushes()).toBe(0);
    expect(submitted.flat()).toEqual(["route del 10.0.0.0/24 proto 219 metric 20 table 254", "route del 10.0.1.0/24 proto 219 metric 20 table 254"]);
    // The kernel reports one of ours changed before anything was wanted (re-attach): that one is re-evaluated only.
    const { fib: f2, flushes: fl2 } = programmer();
    await f2.loadKernel(routes(3));
    f2.observed({ prefix: "10.0.0.0/24", hops: "192.0.2.9", metric: 20 }, false);
    await f2.idle();
    expect(fl2()).toBe(0);
  });
});

describe("FIB programmer: retained routes (fresh gobgpd, re-attach)", () => {
  it("keeps what the kernel has until sweep(): the RIB's routes written only where they differ, the rest deleted at the sweep", async () => {
    const { fib, submitted } = programmer();
    await fib.loadKernel(routes(4));
    fib.retainUntilSweep();
    fib.update("10.0.0.0/24", "192.0.2.2"); // relearned as it is: nothing to write
    fib.update("10.0.1.0/24", "192.0.2.3"); // relearned with another next hop: replaced in place
    await fib.idle();
    expect(submitted.flat()).toEqual(["route replace 10.0.1.0/24 proto 219 metric 20 table 254 via 192.0.2.3"]);
    expect(fib.stats.retained).toBe(2);
    expect(fib.installed("10.0.2.0/24")).toBe("192.0.2.2");
    expect(fib.sweep()).toBe(2);
    await fib.idle();
    expect(submitted.flat().slice(1).sort()).toEqual(["route del 10.0.2.0/24 proto 219 metric 20 table 254", "route del 10.0.3.0/24 proto 219 metric 20 table 254"]);
  });
});

describe("FIB programmer: lines ip refuses", () => {
  it("puts the view back for a refused write, and takes a delete of a route already gone as done", async () => {
    const submitted: string[] = [];
    const batch = {
      submitText: async (text: string, count: number) => {
        const lines = text.split("\n").filter(Boolean);
        expect(lines).toHaveLength(count);
        submitted.push(...lines);
        const failed = new Map<number, string>();
        lines.forEach((l, i) => {
          if (l.includes("10.0.1.0/24")) failed.set(i, "Error: Nexthop has invalid gateway.");
          if (l.includes("10.0.2.0/24")) failed.set(i, "RTNETLINK answers: No such process");
        });
        return { failed };
      },
      close: () => undefined,
    } as unknown as IpBatch;
    const fib = new FibProgrammer({ target: { protocol: 219, table: 254, metric: 20 }, logger: pino({ level: "silent" }), writer: new IpWriter(batch) });
    await fib.loadKernel(routes(3));
    fib.update("10.0.0.0/24", "192.0.2.5");
    fib.update("10.0.1.0/24", "192.0.2.6");
    fib.update("10.0.2.0/24", "");
    await fib.idle();
    expect(submitted).toHaveLength(3);
    expect(fib.installed("10.0.0.0/24")).toBe("192.0.2.5");
    expect(fib.installed("10.0.1.0/24")).toBe("192.0.2.2"); // refused: the kernel kept what it had
    expect(fib.installed("10.0.2.0/24")).toBeUndefined();
    expect(fib.stats).toMatchObject({ failures: 1, lastError: { prefix: "10.0.1.0/24" } });
  });
});

describe("FIB programmer: an ip process due for replacement", () => {
  it("sends no further chunk while one is in flight, so the next process starts after everything applied", async () => {
    let inFlight = 0;
    let most = 0;
    const batch = {
      draining: true,
      submitText: async () => {
        most = Math.max(most, ++inFlight);
        await new Promise((r) => setTimeout(r, 5));
        inFlight--;
        return { failed: new Map() };
      },
      close: () => undefined,
    } as unknown as IpBatch;
    const fib = new FibProgrammer({ target: { protocol: 219, table: 254, metric: 20 }, logger: pino({ level: "silent" }), writer: new IpWriter(batch), chunk: 10 });
    for (const r of routes(50)) fib.update(r.prefix, r.hops);
    await fib.idle();
    expect(most).toBe(1);
    expect(fib.stats).toMatchObject({ installed: 50, writes: 50 });
  });
});

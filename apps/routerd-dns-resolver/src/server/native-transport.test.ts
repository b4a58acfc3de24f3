// The native batch helper (native/udp-batch.c, built by the package's build) with real UDP clients on
// loopback: batches of datagrams answered at once and later, IPv4 and IPv6, oversized datagrams, and a
// close that leaves no thread or socket behind. The helper is Linux-only; elsewhere the dgram path serves.
import { createSocket, type Socket } from "node:dgram";
import { afterEach, describe, expect, it } from "vitest";
import { loadUdpBatch } from "./native/addon.js";
import { NativeTransport } from "./native-transport.js";
import { PKT } from "./native/layout.js";
import type { Deliver } from "./udp-transport.js";
import { DgramTransport } from "./dgram-transport.js";

const linux = process.platform === "linux";
let cleanup: (() => void)[] = [];
afterEach(() => {
  for (const c of cleanup.splice(0).reverse()) c();
});

function client(v6 = false): Socket {
  const s = createSocket(v6 ? "udp6" : "udp4");
  cleanup.push(() => s.close());
  return s;
}

/** Sends `n` datagrams from one socket and collects the answers (until `n` or the timeout). */
function exchange(s: Socket, port: number, address: string, n: number, timeoutMs = 5000): Promise<string[]> {
  const got: string[] = [];
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(got), timeoutMs);
    s.on("message", (m) => {
      got.push(m.toString());
      if (got.length === n) {
        clearTimeout(timer);
        resolve(got);
      }
    });
    for (let i = 0; i < n; i++) s.send(Buffer.from(`q${i}`), port, address);
  });
}

describe.runIf(linux)("native UDP batch helper", () => {
  const choice = loadUdpBatch({});
  it("is built and loads on Linux", () => {
    expect(choice.addon, "reason" in choice ? choice.reason : "").toBeDefined();
    // malloc_trim for the memory settle: callable, says whether pages went back.
    expect(typeof choice.addon!.trim()).toBe("boolean");
  });

  function open(address: string, deliver: Deliver, hooks = {}): NativeTransport {
    const t = new NativeTransport(choice.addon!, address, 0, deliver, hooks);
    cleanup.push(() => t.close());
    return t;
  }

  it("answers every datagram of a burst, in batches, to the right source", async () => {
    const batches: number[] = [];
    const t = open("127.0.0.1", (msg, c, reply) => reply(Buffer.from(`${msg.toString()}@${c.port}`), undefined, c), { onBatch: (n: number) => batches.push(n) });
    expect(t.kind).toBe("native");
    expect(t.port).toBeGreaterThan(0);
    const a = client();
    const b = client();
    // 2 × 100 datagrams: within the test clients' default receive buffers.
    const [ra, rb] = await Promise.all([exchange(a, t.port, "127.0.0.1", 100), exchange(b, t.port, "127.0.0.1", 100)]);
    expect(ra.length).toBe(100);
    expect(rb.length).toBe(100);
    const portA = a.address().port;
    expect(new Set(ra)).toEqual(new Set(Array.from({ length: 100 }, (_, i) => `q${i}@${portA}`)));
    expect(batches.reduce((x, y) => x + y, 0)).toBe(200);
    // A burst arrives faster than one call per datagram.
    expect(batches.length).toBeLessThan(200);
  });

  it("sends answers that finish later to the client's address (IPv6 too)", async () => {
    const t = open("::1", (msg, c, reply) => {
      const to = { ...c };
      setTimeout(() => reply(Buffer.from(`late ${msg.toString()} from ${c.address}`), undefined, to), 5);
    });
    const got = await exchange(client(true), t.port, "::1", 20);
    expect(got.length).toBe(20);
    expect(got).toContain("late q7 from ::1");
  });

  it("drops a datagram longer than its packet area and counts it, answering the rest", async () => {
    let oversized = 0;
    const t = open("127.0.0.1", (msg, c, reply) => reply(Buffer.from(`len ${msg.length}`), undefined, c), { onOversized: () => oversized++ });
    const s = client();
    const got = new Promise<string>((resolve) => s.once("message", (m) => resolve(m.toString())));
    s.send(Buffer.alloc(PKT + 500), t.port, "127.0.0.1");
    s.send(Buffer.alloc(PKT), t.port, "127.0.0.1");
    expect(await got).toBe(`len ${PKT}`);
    expect(oversized).toBe(1);
  });

  it("closes without a thread or socket left: the port is free at once and nothing answers", async () => {
    let seen = 0;
    const t = open("127.0.0.1", (_m, c, reply) => {
      seen++;
      reply(Buffer.from("x"), undefined, c);
    });
    const port = t.port;
    expect((await exchange(client(), port, "127.0.0.1", 3)).length).toBe(3);
    t.close();
    t.close();
    const before = seen;
    // The same port binds again at once (no SO_REUSEADDR): the helper's socket is gone.
    const again = await DgramTransport.start("127.0.0.1", port, (_m, c, reply) => reply(Buffer.from("dgram"), undefined, c));
    cleanup.push(() => again.close());
    expect(await exchange(client(), port, "127.0.0.1", 1)).toEqual(["dgram"]);
    expect(seen).toBe(before);
  });

  it("refuses a port already taken, with the errno in the message", async () => {
    const t = open("127.0.0.1", () => undefined);
    expect(() => new NativeTransport(choice.addon!, "127.0.0.1", t.port, () => undefined)).toThrow(/EADDRINUSE 127\.0\.0\.1/);
  });
});

describe("transport choice", () => {
  it("ROUTERD_DNS_UDP=dgram chooses node:dgram and says why", () => {
    expect(loadUdpBatch({ ROUTERD_DNS_UDP: "dgram" })).toEqual({ reason: "ROUTERD_DNS_UDP=dgram" });
  });
});

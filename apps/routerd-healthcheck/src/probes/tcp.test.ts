import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProbeConfig } from "../config.js";
import { closedPort, tcpListener } from "../test-support/servers.js";
import { tcpProbe } from "./tcp.js";

const base = { name: "t", type: "tcp", target: "127.0.0.1", intervalMs: 1000, timeoutMs: 800, healthyThreshold: 1, unhealthyThreshold: 1 } as const;
const run = (p: Partial<ProbeConfig>) => tcpProbe({ ...base, ...p }, new AbortController().signal);

describe("tcp probe on 127.0.0.1", () => {
  let listener: Awaited<ReturnType<typeof tcpListener>>;
  beforeAll(async () => {
    listener = await tcpListener();
  });
  afterAll(() => listener.close());

  it("succeeds when the handshake completes and measures the connect time", async () => {
    const r = await run({ port: listener.port });
    expect(r).toMatchObject({ ok: true });
    expect(r.latencyMs).toBeGreaterThan(0);
  });

  it("connects from the source address", async () => {
    const r = await run({ port: listener.port, sourceAddress: "127.0.0.2" });
    expect(r.ok).toBe(true);
    expect(listener.peers.at(-1)).toBe("127.0.0.2");
  });

  it("fails with ConnectionRefused on a closed port", async () => {
    expect(await run({ port: await closedPort() })).toMatchObject({ ok: false, reason: "ConnectionRefused", error: expect.stringMatching(/ECONNREFUSED/) });
  });

  it("fails with SourceUnavailable when the source address is not on this host", async () => {
    expect(await run({ port: listener.port, sourceAddress: "192.0.2.250" })).toMatchObject({ ok: false, reason: "SourceUnavailable" });
  });

  it("fails with InterfaceNotFound for a missing interface", async () => {
    expect(await run({ port: listener.port, interface: "rdnosuch0" })).toMatchObject({ ok: false, reason: "InterfaceNotFound", error: "interface rdnosuch0 not found" });
  });

  it("resolves a host name (localhost, from /etc/hosts)", async () => {
    expect(await run({ port: listener.port, target: "localhost", sourceAddress: "127.0.0.1" })).toMatchObject({ ok: true });
  });

  it("returns a timeout at once when already aborted", async () => {
    const c = new AbortController();
    c.abort();
    expect(await tcpProbe({ ...base, port: listener.port }, c.signal)).toMatchObject({ ok: false, reason: "Timeout" });
  });
});

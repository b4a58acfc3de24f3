import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProbeConfig } from "../config.js";
import { closedPort, httpServer, httpsServer, rawServer, type Closable } from "../test-support/servers.js";
import { hostHeader, httpProbe, statusExpected } from "./http.js";

const base = { name: "h", target: "127.0.0.1", intervalMs: 2000, timeoutMs: 500, healthyThreshold: 1, unhealthyThreshold: 1 } as const;

async function run(p: Partial<ProbeConfig> & { port: number }, signal = new AbortController().signal) {
  const probe: ProbeConfig = { ...base, type: "http", ...p };
  return httpProbe(probe, signal);
}

describe("http probe against local servers", () => {
  let http: Awaited<ReturnType<typeof httpServer>>;
  let https: Awaited<ReturnType<typeof httpsServer>>;
  let garbage: Closable;
  let reset: Closable;
  beforeAll(async () => {
    [http, https, garbage, reset] = await Promise.all([httpServer(), httpsServer(), rawServer("garbage"), rawServer("reset")]);
  });
  afterAll(async () => {
    await Promise.all([http, https, garbage, reset].map((s) => s.close()));
  });

  it("succeeds on 200 and sends the path and Host header", async () => {
    const r = await run({ port: http.port, path: "/health?x=1" });
    expect(r).toMatchObject({ ok: true, detail: "HTTP 200" });
    expect(http.seen.at(-1)).toEqual({ url: "/health?x=1", host: `127.0.0.1:${http.port}` });
  });

  it("fails on 500 with BadStatus", async () => {
    const r = await run({ port: http.port, path: "/status/500" });
    expect(r).toMatchObject({ ok: false, reason: "BadStatus", error: "HTTP 500, expected 200-399" });
    expect(r.latencyMs).toBeGreaterThan(0);
  });

  it("counts only the expected statuses as success when expectStatus is set", async () => {
    expect(await run({ port: http.port, path: "/status/500", expectStatus: [500] })).toMatchObject({ ok: true });
    expect(await run({ port: http.port, path: "/status/200", expectStatus: [204] })).toMatchObject({ ok: false, reason: "BadStatus", error: "HTTP 200, expected 204" });
  });

  it("times out when the server never answers", async () => {
    const c = new AbortController();
    setTimeout(() => c.abort(), 200);
    expect(await run({ port: http.port, path: "/hang" }, c.signal)).toMatchObject({ ok: false, reason: "Timeout" });
  });

  it("reports a non-HTTP reply as MalformedReply", async () => {
    expect(await run({ port: garbage.port })).toMatchObject({ ok: false, reason: "MalformedReply" });
  });

  it("reports a reset as ConnectionReset", async () => {
    expect(await run({ port: reset.port })).toMatchObject({ ok: false, reason: "ConnectionReset" });
  });

  it("reports a closed port as ConnectionRefused", async () => {
    expect(await run({ port: await closedPort() })).toMatchObject({ ok: false, reason: "ConnectionRefused" });
  });

  it("https succeeds against a self-signed certificate (no verification, by design)", async () => {
    const r = await run({ type: "https", port: https.port, path: "/tls" });
    expect(r).toMatchObject({ ok: true, detail: "HTTP 200" });
    expect(https.seen.at(-1)).toEqual({ url: "/tls", host: `127.0.0.1:${https.port}` });
  });

  it("sends host as Host header and checks the body with expectBody", async () => {
    expect(await run({ port: http.port, path: "/body/ok", host: "api.example", expectBody: "ready: ok" })).toMatchObject({ ok: true });
    expect(http.seen.at(-1)).toEqual({ url: "/body/ok", host: `api.example:${http.port}` });
    expect(await run({ port: http.port, path: "/body/starting", expectBody: "ready: ok" })).toMatchObject({ ok: false, reason: "BadStatus", error: 'HTTP 200, body lacks "ready: ok"' });
    // Text past the first 64 KiB does not count: the filler body is 100 kB of "x".
    expect(await run({ port: http.port, path: "/", expectBody: "y" })).toMatchObject({ ok: false, reason: "BadStatus" });
  });

  it("https with tlsVerify refuses the self-signed certificate", async () => {
    expect(await run({ type: "https", port: https.port, tlsVerify: true })).toMatchObject({ ok: false, reason: "TlsError" });
  });

  it("https against a plain HTTP server fails with TlsError", async () => {
    expect(await run({ type: "https", port: http.port })).toMatchObject({ ok: false, reason: "TlsError" });
  });
});

describe("statusExpected / hostHeader", () => {
  it("defaults to 200-399", () => {
    expect([199, 200, 302, 399, 400, 500].map((s) => statusExpected(s, undefined))).toEqual([false, true, true, true, false, false]);
    expect(statusExpected(503, [503])).toBe(true);
  });

  it("omits the default port and brackets IPv6", () => {
    const p = { ...base, type: "http" } as const;
    expect(hostHeader({ ...p, target: "example.net" })).toBe("example.net");
    expect(hostHeader({ ...p, target: "example.net", port: 8080 })).toBe("example.net:8080");
    expect(hostHeader({ ...p, type: "https", target: "2001:db8::1" })).toBe("[2001:db8::1]");
    expect(hostHeader({ ...p, type: "https", target: "2001:db8::1", port: 80 })).toBe("[2001:db8::1]:80");
  });
});

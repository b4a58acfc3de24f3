import { describe, expect, it } from "vitest";
import type { ProbeConfig } from "../config.js";
import { icmpProbe, makeIcmpProbe, parsePing, pingArgs } from "./icmp.js";

const base: ProbeConfig = { name: "i", type: "icmp", target: "127.0.0.1", intervalMs: 2000, timeoutMs: 500, healthyThreshold: 1, unhealthyThreshold: 1 };

// Output of iputils-ping 20221126 (LC_ALL=C), captured from real runs.
const REPLY = `PING 127.0.0.1 (127.0.0.1) 56(84) bytes of data.
64 bytes from 127.0.0.1: icmp_seq=1 ttl=64 time=0.045 ms

--- 127.0.0.1 ping statistics ---
1 packets transmitted, 1 received, 0% packet loss, time 0ms
rtt min/avg/max/mdev = 0.045/0.045/0.045/0.000 ms
`;
const SILENT = `PING 198.51.100.1 (198.51.100.1) 56(84) bytes of data.

--- 198.51.100.1 ping statistics ---
1 packets transmitted, 0 received, 100% packet loss, time 0ms

`;
const HOST_UNREACHABLE = `PING 10.9.0.77 (10.9.0.77) 56(84) bytes of data.
From 10.9.0.1 icmp_seq=1 Destination Host Unreachable

--- 10.9.0.77 ping statistics ---
1 packets transmitted, 0 received, +1 errors, 100% packet loss, time 0ms

`;

describe("parsePing", () => {
  const table: [string, number | null, string, string, object][] = [
    ["a reply", 0, REPLY, "", { ok: true, latencyMs: 0.045 }],
    ["no reply", 1, SILENT, "", { ok: false, reason: "Timeout", error: "no answer within 500 ms", latencyMs: 500 }],
    ["an ICMP host unreachable", 1, HOST_UNREACHABLE, "", { ok: false, reason: "HostUnreachable", error: "From 10.9.0.1 icmp_seq=1 Destination Host Unreachable" }],
    ["no route", 2, "", "ping: connect: Network is unreachable\n", { ok: false, reason: "NetworkUnreachable", error: "connect: Network is unreachable" }],
    ["a blackhole route", 2, "", "ping: connect: Invalid argument\n", { ok: false, reason: "NetworkError", error: "connect: Invalid argument" }],
    ["a missing interface", 2, "", "ping: SO_BINDTODEVICE nosuch: No such device\n", { ok: false, reason: "InterfaceNotFound", error: "SO_BINDTODEVICE nosuch: No such device" }],
    ["a name that does not resolve", 2, "", "ping: x.invalid: Temporary failure in name resolution\n", { ok: false, reason: "NameResolutionFailed", error: "x.invalid: Temporary failure in name resolution" }],
    ["a source address not on the host", 2, "", "ping: bind: Cannot assign requested address\n", { ok: false, reason: "SourceUnavailable", error: "bind: Cannot assign requested address" }],
    ["no permission", 2, "", "ping: socket: Operation not permitted\n", { ok: false, reason: "LocalError", error: "socket: Operation not permitted" }],
    ["a kill by signal", null, "", "", { ok: false, reason: "NetworkError", error: "ping exited with null" }],
  ];
  for (const [what, code, out, err, expected] of table) {
    it(`reads ${what}`, () => expect(parsePing(code, out, err, 500)).toMatchObject(expected));
  }
});

describe("pingArgs", () => {
  it("asks for one echo with the timeout in seconds", () => {
    expect(pingArgs(base)).toEqual(["-n", "-c", "1", "-W", "0.500", "-4", "127.0.0.1"]);
  });

  it("binds interface and source together and sets the mark", () => {
    expect(pingArgs({ ...base, target: "isp.example", interface: "wan0", sourceAddress: "192.0.2.2", fwmark: 257 })).toEqual([
      "-n", "-c", "1", "-W", "0.500", "-I", "wan0", "-I", "192.0.2.2", "-m", "257", "-4", "isp.example",
    ]);
    expect(pingArgs({ ...base, target: "2001:db8::1" }).slice(-2)).toEqual(["-6", "2001:db8::1"]);
  });
});

describe("icmp probe", () => {
  it("gets an echo reply from 127.0.0.1", async () => {
    const r = await icmpProbe(base, new AbortController().signal);
    expect(r).toMatchObject({ ok: true });
    expect(r.latencyMs).toBeGreaterThan(0);
  });

  it("fails with InterfaceNotFound for a missing interface", async () => {
    expect(await icmpProbe({ ...base, interface: "rdnosuch0" }, new AbortController().signal)).toMatchObject({ ok: false, reason: "InterfaceNotFound" });
  });

  it("reports a missing ping program as a LocalError", async () => {
    const probe = makeIcmpProbe({ command: "/nonexistent/ping" });
    expect(await probe(base, new AbortController().signal)).toEqual({ ok: false, reason: "LocalError", error: "/nonexistent/ping not found: install iputils-ping" });
  });

  it("kills ping when the attempt is aborted", async () => {
    // `sleep` stands in for a ping that hangs (a slow name lookup, say).
    const probe = makeIcmpProbe({ command: "sh", prefixArgs: ["-c", "exec sleep 5", "--"] });
    const c = new AbortController();
    setTimeout(() => c.abort(), 100);
    const started = Date.now();
    expect(await probe(base, c.signal)).toMatchObject({ ok: false, reason: "Timeout" });
    expect(Date.now() - started).toBeLessThan(4000);
  });
});

// Probe building blocks that need root: the ICMP probe inside a namespace against reachable, blackholed,
// unroutable and silent addresses and a fwmark that changes the route; SO_MARK and SO_BINDTOIFINDEX
// reaching the kernel on TCP (the tcp_wrap path) and UDP sockets.
import { createSocket } from "node:dgram";
import { once } from "node:events";
import { createServer, type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ProbeConfig } from "../../apps/routerd-healthcheck/src/config.js";
import { applySocketOptions, interfaceIndex, readSocketOptions } from "../../apps/routerd-healthcheck/src/net/socket-options.js";
import { canBindTcpBeforeConnect, connectTcp } from "../../apps/routerd-healthcheck/src/net/tcp-connect.js";
import { makeIcmpProbe } from "../../apps/routerd-healthcheck/src/probes/icmp.js";
import type { ProbeFn } from "../../apps/routerd-healthcheck/src/probes/outcome.js";
import { Netns } from "../lib/netns.js";

const base: ProbeConfig = { name: "i", type: "icmp", target: "127.0.0.1", intervalMs: 2000, timeoutMs: 300, healthyThreshold: 1, unhealthyThreshold: 1 };

/** Runs one attempt with the runner's timeout. */
async function attempt(probe: ProbeFn, p: Partial<ProbeConfig>) {
  const c = new AbortController();
  const timer = setTimeout(() => c.abort(), base.timeoutMs + 200);
  try {
    return await probe({ ...base, ...p }, c.signal);
  } finally {
    clearTimeout(timer);
  }
}

describe("icmp probe inside a namespace", () => {
  let ns: Netns;
  let peer: Netns;
  let ping: ProbeFn;
  beforeAll(() => {
    ns = Netns.create("rd-hc-p");
    peer = Netns.create("rd-hc-q");
    ns.veth("v1", "eth0", peer);
    ns.ip("addr add 10.77.0.1/24 dev v1");
    ns.ip("link set v1 up");
    peer.ip("addr add 10.77.0.2/24 dev eth0");
    peer.ip("link set eth0 up");
    ns.ip("route add blackhole 192.0.2.0/24");
    // On-link, but nobody answers ARP for it: packets leave and nothing comes back.
    ns.ip("route add 203.0.113.0/24 dev v1");
    // Marked packets to the peer are blackholed: the mark must change the route.
    ns.ip("route add blackhole 10.77.0.0/24 table 77");
    ns.ip("rule add fwmark 0x77 lookup 77 pref 100");
    ping = makeIcmpProbe({ command: "ip", prefixArgs: ["netns", "exec", ns.name, "ping"] });
  });
  afterAll(() => {
    ns?.destroy();
    peer?.destroy();
  });

  it("gets replies from loopback and from a peer", async () => {
    expect(await attempt(ping, { target: "127.0.0.1" })).toMatchObject({ ok: true });
    expect(await attempt(ping, { target: "10.77.0.2", interface: "v1", sourceAddress: "10.77.0.1" })).toMatchObject({ ok: true });
  });

  it("reports a blackholed, an unroutable and a silent address differently", async () => {
    expect(await attempt(ping, { target: "192.0.2.1" })).toMatchObject({ ok: false, reason: "NetworkError", error: "connect: Invalid argument" });
    expect(await attempt(ping, { target: "198.51.100.1" })).toMatchObject({ ok: false, reason: "NetworkUnreachable" });
    expect(await attempt(ping, { target: "203.0.113.9" })).toMatchObject({ ok: false, reason: "Timeout", error: "no answer within 300 ms" });
  });

  it("sends with the fwmark, so policy routing applies", async () => {
    expect(await attempt(ping, { target: "10.77.0.2", fwmark: 0x77 })).toMatchObject({ ok: false, reason: "NetworkError" });
    expect(await attempt(ping, { target: "10.77.0.2", fwmark: 0x78 })).toMatchObject({ ok: true });
  });

  it("fails bound to an interface that does not lead to the target", async () => {
    expect(await attempt(ping, { target: "10.77.0.2", interface: "lo" })).toMatchObject({ ok: false });
  });
});

describe("socket options reach the kernel (loopback, root)", () => {
  it("TCP: mark and interface are set before connect and the connection works", async () => {
    expect(canBindTcpBeforeConnect()).toBe(true);
    const server = createServer((s) => s.end()).listen(0, "127.0.0.1");
    await once(server, "listening");
    try {
      const port = (server.address() as AddressInfo).port;
      const ifindex = await interfaceIndex("lo");
      for (const fwmark of [0x1234, 0xfffffff0]) {
        const socket = await connectTcp({ address: "127.0.0.1", family: 4, port }, { socketOptions: { ifindex, fwmark } }, new AbortController().signal);
        expect(readSocketOptions(socket)).toEqual({ ifindex, fwmark });
        socket.destroy();
      }
      const fromSource = await connectTcp({ address: "127.0.0.1", family: 4, port }, { sourceAddress: "127.0.0.3", socketOptions: { fwmark: 7 } }, new AbortController().signal);
      expect(fromSource.localAddress).toBe("127.0.0.3");
      fromSource.destroy();
    } finally {
      server.close();
    }
  });

  it("UDP: mark and interface on a bound socket", async () => {
    const socket = createSocket("udp4");
    socket.bind(0, "127.0.0.1");
    await once(socket, "listening");
    try {
      applySocketOptions(socket, { ifindex: 1, fwmark: 0x101 });
      expect(readSocketOptions(socket)).toEqual({ ifindex: 1, fwmark: 0x101 });
    } finally {
      socket.close();
    }
  });
});

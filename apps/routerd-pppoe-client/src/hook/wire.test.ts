// The hand-encoded request must be exactly what the generated code decodes, and a call must work against a
// real grpc-js server serving the Daemon service (the one the daemon kit serves).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Server, ServerCredentials } from "@grpc/grpc-js";
import { CommandRequest, DaemonService } from "@routerd/rpc";
import { describe, expect, it } from "vitest";
import { canonicalIpv6, hookArgs } from "./report.js";
import { callCommand, encodeCommandRequest } from "./wire.js";

describe("CommandRequest encoding", () => {
  it("decodes with the generated decoder, non-ASCII and long values included", () => {
    const args = { event: "ip-up", ifname: "ppp0", dnsServers: "192.0.2.53,192.0.2.54", note: "ü".repeat(200) };
    expect(CommandRequest.decode(encodeCommandRequest("pppd-hook", args))).toEqual({ name: "pppd-hook", args });
  });
});

describe("callCommand", () => {
  it("reaches a grpc-js Daemon service on a Unix socket and gets grpc-status 0", async () => {
    const dir = mkdtempSync(join(tmpdir(), "pppoe-wire-"));
    const socket = join(dir, "d.sock");
    const server = new Server();
    const seen: unknown[] = [];
    server.addService(DaemonService, {
      getStatus: () => undefined,
      watchEvents: () => undefined,
      command: (call: { request: unknown }, cb: (e: null, r: unknown) => void) => {
        seen.push(call.request);
        cb(null, { ok: true, message: "recorded", detailsJson: "" });
      },
    });
    await new Promise<void>((resolve, reject) => server.bindAsync(`unix:${socket}`, ServerCredentials.createInsecure(), (err) => (err ? reject(err) : resolve())));
    try {
      expect(await callCommand(socket, "pppd-hook", { event: "ip-down" }, 3000)).toMatchObject({ status: 0 });
      expect(seen).toEqual([{ name: "pppd-hook", args: { event: "ip-down" } }]);
      const gone = await callCommand(join(dir, "missing.sock"), "x", {}, 1000);
      expect(gone.status).toBeUndefined();
      expect(gone.message).toMatch(/ENOENT/);
    } finally {
      server.forceShutdown();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("hook arguments", () => {
  it("ip-up takes the addresses and the peer's DNS servers", () => {
    const env = { IPLOCAL: "10.64.0.100", IPREMOTE: "10.64.0.1", DNS1: "192.0.2.53", DNS2: "192.0.2.54", PPPD_PID: "77" };
    expect(hookArgs("ip-up", ["ppp0", "wan0", "0", "10.64.0.100", "10.64.0.1", "wan"], env)).toEqual({
      event: "ip-up",
      ifname: "ppp0",
      local: "10.64.0.100",
      remote: "10.64.0.1",
      dnsServers: "192.0.2.53,192.0.2.54",
      pppdPid: "77",
    });
  });
  it("maps mpd5's up- and down-script arguments (FreeBSD)", () => {
    expect(hookArgs("mpd-up", ["ng0", "inet", "10.64.0.100/32", "10.64.0.1", "alice", "dns1", "192.0.2.53", "dns2", "192.0.2.54", "00:11:22:33:44:55"], {})).toEqual({
      event: "ip-up",
      ifname: "ng0",
      local: "10.64.0.100",
      remote: "10.64.0.1",
      dnsServers: "192.0.2.53,192.0.2.54",
    });
    expect(hookArgs("mpd-down", ["ng0", "inet6", "fe80::2%ng0", "fe80::1%ng0", "alice", "peer"], {})).toEqual({ event: "ipv6-down", ifname: "ng0", localLinkLocal: "fe80::2", peerLinkLocal: "fe80::1" });
  });

  it("ipv6-up takes the link-local addresses, in the kernel's canonical text", () => {
    expect(hookArgs("ipv6-up", ["ppp0", "wan0", "0", "fe80::2", "fe80::1", "wan"], { LLLOCAL: "fe80::0000:0000:0000:0002", LLREMOTE: "FE80::0000:0000:0000:0001" })).toEqual({
      event: "ipv6-up",
      ifname: "ppp0",
      localLinkLocal: "fe80::2",
      peerLinkLocal: "fe80::1",
    });
    expect(canonicalIpv6("fe80::9cad:ba0d:987c:0623")).toBe("fe80::9cad:ba0d:987c:623");
    expect(canonicalIpv6("not an address")).toBe("not an address");
  });
});

// The daemon form on its own (--instance), against dnsmasq: the resource routerd core reads, GetLease, the
// release and renew commands, a second instance refused with exit code 75, and SIGTERM with a RELEASE.
// routerd core is not running here, so the test puts the leased address on the interface itself (RELEASE
// is sent from it).
import type { ChildProcess } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { credentials } from "@grpc/grpc-js";
import { connectDaemon, daemonSocketPath, unixTarget, type DaemonConnection } from "@routerd/rpc";
import { Dhcpv4Client, type ClientState } from "@routerd/rpc/gen/routerd/dhcpv4/v1/dhcpv4";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Lab, nsExec, waitForExit } from "../dhcpv4-client/netns.js";
import { CLIENT_BIN, Dnsmasq } from "../dhcpv4-client/peers.js";
import { addWan, type Wan } from "../dhcpv4-client/topology.js";
import { EventTap, ensureBuilt, until } from "./router.js";

const lab = new Lab("d4dmn");
let router: string;
let wan: Wan;
let server: Dnsmasq;
let daemon: ChildProcess;
let conn: DaemonConnection;
let tap: EventTap;
const runDir = lab.path("run");
const stateDir = lab.path("state");
const socket = daemonSocketPath(runDir, "dhcpv4-client", "isp");
const args = () => [process.execPath, CLIENT_BIN, "--instance", "isp", "--interface", wan.wanIf, "--run-dir", runDir, "--state-dir", stateDir];

function getLease(): Promise<ClientState> {
  const c = new Dhcpv4Client(unixTarget(socket), credentials.createInsecure());
  return new Promise((resolve, reject) =>
    c.getLease({}, (err, reply) => {
      c.close();
      if (err) reject(err);
      else resolve(reply.client!);
    }),
  );
}

const resource = async () => (await conn.getStatus()).resources.find((r) => r.name === "isp");

beforeAll(async () => {
  ensureBuilt();
  router = lab.netns("rtr");
  wan = addWan(lab, router, "isp", "10.77.0");
  server = await Dnsmasq.start(lab, { ns: wan.isp, iface: wan.ispIf, range: "10.77.0.100,10.77.0.150,2m", leaseFile: lab.path("isp.leases"), extra: ["--dhcp-option=option:dns-server,10.77.0.53"] });
  daemon = lab.spawn(router, args());
  await until("the socket", () => existsSync(socket));
  conn = await connectDaemon(socket);
  tap = new EventTap(socket);
});

afterAll(async () => {
  tap?.close();
  conn?.close();
  await lab.cleanup();
});

describe("routerd-dhcpv4-client --instance", () => {
  it("reports the lease as resource 'isp' (DHCPv4Client, Bound) with the details routerd core applies", { timeout: 20_000 }, async () => {
    const r = await until("Bound", async () => {
      const x = await resource();
      return x?.phase === "Bound" ? x : undefined;
    }, 15_000);
    expect(r.kind).toBe("DHCPv4Client");
    const d = JSON.parse(r.detailsJson) as Record<string, unknown>;
    expect(d).toMatchObject({ prefixLength: 24, routers: ["10.77.0.1"], dnsServers: ["10.77.0.53"], classlessRoutes: [], serverId: "10.77.0.1" });
    expect(Date.parse(String(d.expiresAt)) - Date.now()).toBeGreaterThan(100_000);
    // Play routerd core's part: RELEASE and RENEW need the address on the interface.
    nsExec(router, ["ip", "addr", "add", `${String(d.address)}/24`, "dev", wan.wanIf]);

    const state = await getLease();
    const mac = nsExec(router, ["cat", `/sys/class/net/${wan.wanIf}/address`]).trim();
    expect(state).toMatchObject({ phase: "Bound", state: "bound", interface: wan.wanIf, hardwareAddress: mac, clientId: `01:${mac}`, held: true, lastEvent: "bound" });
    expect(state.lease).toMatchObject({ address: d.address, subnetMask: "255.255.255.0", leaseTime: 120, renewalTime: 60, rebindingTime: 105 });
    // The engine's lease file lives in the kit's state directory.
    const stored = JSON.parse(readFileSync(join(stateDir, "dhcpv4-client", "isp", "lease.json"), "utf8")) as { lease: { address: string } };
    expect(stored.lease.address).toBe(d.address);
  });

  it("refuses a second instance with exit code 75 and leaves the first alone", { timeout: 20_000 }, async () => {
    const from = server.lines.length;
    const second = lab.spawn(router, args());
    expect(await waitForExit(second, 10_000)).toBe(75);
    expect(server.lines.slice(from).filter((l) => / DHCP[A-Z]+\(/.test(l))).toEqual([]);
    expect((await resource())?.phase).toBe("Bound");
  });

  it("releases on the release command and acquires again on renew", { timeout: 30_000 }, async () => {
    const address = (await getLease()).lease!.address;
    const release = await conn.command("release");
    expect(release.ok).toBe(true);
    await server.waitForLog(/DHCPRELEASE\(/, 5000);
    expect(await resource()).toMatchObject({ phase: "Released", detailsJson: "" });
    expect(await getLease()).toMatchObject({ held: false, state: "idle", lastEvent: "released" });
    nsExec(router, ["ip", "addr", "del", `${address}/24`, "dev", wan.wanIf]);

    const from = tap.events.length;
    expect((await conn.command("renew")).ok).toBe(true);
    await tap.next("bound", from, 15_000);
    expect((await resource())?.phase).toBe("Bound");
    nsExec(router, ["ip", "addr", "add", `${(await getLease()).lease!.address}/24`, "dev", wan.wanIf]);
  });

  it("stops on SIGTERM with a RELEASE, and removes its socket", { timeout: 20_000 }, async () => {
    const from = server.lines.length;
    daemon.kill("SIGTERM");
    expect(await waitForExit(daemon, 10_000)).toBe(0);
    await server.waitForLog(/DHCPRELEASE\(/, 5000, from);
    expect(server.leases()).toEqual([]);
    expect(existsSync(socket)).toBe(false);
    expect(existsSync(join(stateDir, "dhcpv4-client", "isp", "lease.json"))).toBe(false);
    expect(tap.topics().slice(-1)).toEqual(["released"]);
  });
});

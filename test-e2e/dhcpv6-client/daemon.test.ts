// The daemon form routerd runs (--instance): against kea, the socket reports the prefix as the
// DHCPv6PrefixDelegation resource routerd core reads, streams dhcpv6.prefix.* events, answers GetLease,
// takes renew/release commands, and SIGTERM sends RELEASE.
import { credentials } from "@grpc/grpc-js";
import { connectDaemon, daemonSocketPath, unixTarget, type DaemonConnection, type Event } from "@routerd/rpc";
import { Dhcpv6Client, type Binding } from "@routerd/rpc/gen/routerd/dhcpv6/v1/dhcpv6";
import { existsSync } from "node:fs";
import { join } from "node:path";
import type { ChildProcess } from "node:child_process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLIENT_BIN, ensureBuilt } from "./support/client.js";
import { Kea } from "./support/kea.js";
import { Lab, terminate } from "./support/lab.js";

const lab = new Lab("dmn");
let kea: Kea;
let daemon: ChildProcess;
let conn: DaemonConnection;
const runDir = lab.path("run");
const stateDir = lab.path("state");
const socket = daemonSocketPath(runDir, "dhcpv6-client", "isp");
const subnet = { id: 1, iface: "isp0", subnet: "2001:db8:1::/64", pdPrefix: "2001:db8:1000::", rapidCommit: true };
const events: Event[] = [];
let watching: AbortController;

async function until<T>(what: string, fn: () => Promise<T | undefined> | T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; events: ${events.map((e) => e.topic).join(" ")}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

async function resource() {
  return (await conn.getStatus()).resources.find((r) => r.name === "isp");
}

function getLease(): Promise<Binding> {
  const c = new Dhcpv6Client(unixTarget(socket), credentials.createInsecure());
  return new Promise((resolve, reject) =>
    c.getLease({}, (err, reply) => {
      c.close();
      if (err) reject(err);
      else resolve(reply.binding!);
    }),
  );
}

beforeAll(async () => {
  ensureBuilt();
  const isp = lab.netns("isp");
  const rtr = lab.netns("rtr");
  lab.veth(isp, "isp0", rtr, "wan0");
  kea = new Kea(lab, isp, { subnets: [subnet], optionData: [{ name: "dns-servers", data: "2001:db8::53" }] });
  await kea.start();
  daemon = lab.spawn(rtr, [process.execPath, CLIENT_BIN, "--instance", "isp", "--interface", "wan0", "--run-dir", runDir, "--state-dir", stateDir, "--prefix-length", "56"]);
  await until("the socket", () => (existsSync(socket) ? true : undefined));
  conn = await connectDaemon(socket);
  watching = new AbortController();
  void (async () => {
    for await (const e of conn.watchEvents({ afterSeq: 0, topicPrefixes: ["dhcpv6."], signal: watching.signal })) events.push(e);
  })().catch(() => undefined);
});

afterAll(async () => {
  watching?.abort();
  conn?.close();
  await lab.cleanup();
});

describe("routerd-dhcpv6-client --instance against kea", () => {
  it("reports the delegated prefix as resource 'isp' (DHCPv6PrefixDelegation, Bound) with the DelegatedPrefix details", async () => {
    const r = await until("Bound", async () => {
      const x = await resource();
      return x?.phase === "Bound" ? x : undefined;
    });
    expect(r.kind).toBe("DHCPv6PrefixDelegation");
    const d = JSON.parse(r.detailsJson);
    expect(`${d.prefix}/${d.prefixLength}`).toMatch(/^2001:db8:10[0-9a-f:]*\/56$/);
    expect(d).toMatchObject({ preferredLifetime: 5, validLifetime: 8, dnsServers: ["2001:db8::53"], domainSearch: [] });
    expect(Date.parse(d.expiresAt)).toBeGreaterThan(Date.now());
    await until("acquired event", () => events.find((e) => e.topic === "dhcpv6.prefix.acquired"));
    const leases = await kea.leases();
    expect(leases.map((l) => `${l["ip-address"]}/${l["prefix-len"]}`)).toEqual([`${d.prefix}/${d.prefixLength}`]);
    const binding = await getLease();
    expect(binding.prefixes.map((p) => `${p.prefix}/${p.prefixLength}`)).toEqual([`${d.prefix}/56`]);
    expect(binding.clientDuid).toBe(leases[0]!.duid);
  });

  it("renews at T1 and reports it as an event", async () => {
    const renewed = await until("renewed event", () => events.find((e) => e.topic === "dhcpv6.prefix.renewed"));
    expect(renewed.attributes.via).toBe("renew");
    expect((await resource())?.phase).toMatch(/^(Bound|Renewing)$/);
  });

  it("after a pool change and a renew command: the new prefix, the old one listed as withdrawn", async () => {
    const old = JSON.parse((await resource())!.detailsJson);
    await kea.reconfigure({ subnets: [{ ...subnet, pdPrefix: "2001:db8:2000::" }] });
    expect((await conn.command("renew")).ok).toBe(true);
    const changed = await until("changed event", () => events.find((e) => e.topic === "dhcpv6.prefix.changed"));
    expect(changed.attributes.removed).toBe(`${old.prefix}/56`);
    const d = await until("new details", async () => {
      const x = JSON.parse((await resource())!.detailsJson);
      return x.prefix !== old.prefix ? x : undefined;
    });
    expect(d.prefix).toMatch(/^2001:db8:20/);
    expect(d.withdrawn).toEqual([{ prefix: old.prefix, prefixLength: 56, until: expect.any(String) }]);
  });

  it("SIGTERM releases the prefix at the server and removes the socket", async () => {
    const code = await terminate(daemon);
    expect(code).toBe(0);
    expect(existsSync(socket)).toBe(false);
    const active = (await kea.leases()).filter((l) => l["valid-lft"] > 0);
    expect(active).toEqual([]);
    expect(events.map((e) => e.topic)).toContain("dhcpv6.prefix.released");
    expect(existsSync(join(stateDir, "dhcpv6-client", "isp", "duid"))).toBe(true);
  });
});

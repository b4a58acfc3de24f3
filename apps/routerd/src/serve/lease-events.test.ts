// watchLeaseEvents against a real daemon kit in this process, standing in for routerd-dhcpv4-client on the
// socket routerd serve dials for the DHCPv4Client resource: lease events kick, other topics do not, and the
// watch follows the config (a removed resource's daemon is no longer watched).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DHCPV4_CLIENT_DAEMON, loadConfig, type RouterConfig } from "@routerd/api";
import { runDaemon, type DaemonHandle } from "@routerd/daemon-kit";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { watchLeaseEvents } from "./lease-events.js";

const dir = mkdtempSync(join(tmpdir(), "rd-lease-events-"));
const runDir = join(dir, "run");
const ac = new AbortController();
let daemon: DaemonHandle;
let kicks = 0;

function config(withClient: boolean): RouterConfig {
  const resources = [{ apiVersion: "net.routerd.net/v1alpha1", kind: "Interface", metadata: { name: "wan" }, spec: { ifname: "eth0" } }];
  if (withClient) resources.push({ apiVersion: "net.routerd.net/v1alpha1", kind: "DHCPv4Client", metadata: { name: "isp" }, spec: { interface: "wan" } as never });
  const r = loadConfig(JSON.stringify({ apiVersion: "routerd.net/v1alpha1", kind: "Router", metadata: { name: "t" }, spec: { resources } }), "test.yaml");
  if (!r.config) throw new Error(JSON.stringify(r.issues));
  return r.config;
}

let current = config(true);

async function until(what: string, fn: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!fn()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

beforeAll(async () => {
  daemon = await runDaemon({ name: DHCPV4_CLIENT_DAEMON, instance: "isp", runDir, stateDir: join(dir, "state"), logger: pino({ level: "silent" }), handleSignals: false });
  void watchLeaseEvents(runDir, ac.signal, () => current, () => kicks++, 50);
});

afterAll(async () => {
  ac.abort();
  await daemon.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("watchLeaseEvents", () => {
  it("kicks once on connect and on every lease event, not on other topics", async () => {
    await until("the first kick (connected)", () => kicks === 1);
    daemon.events.emit({ topic: "dhcpv4.lease.bound", resource: "isp", message: "bound" });
    await until("a kick for the lease event", () => kicks === 2);
    daemon.events.emit({ topic: "status.condition", resource: "isp", message: "noise" });
    daemon.events.emit({ topic: "dhcpv4.lease.lost", resource: "isp", message: "lost" });
    await until("a kick for the loss", () => kicks === 3);
    await new Promise((r) => setTimeout(r, 200));
    expect(kicks).toBe(3);
  });

  it("stops watching a daemon whose resource left the config", async () => {
    current = config(false);
    await new Promise((r) => setTimeout(r, 300));
    const before = kicks;
    daemon.events.emit({ topic: "dhcpv4.lease.bound", resource: "isp", message: "bound" });
    await new Promise((r) => setTimeout(r, 300));
    expect(kicks).toBe(before);
  });
});

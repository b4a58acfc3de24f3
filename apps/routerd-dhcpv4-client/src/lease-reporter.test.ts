// The reporter against the real daemon kit in this process: what GetStatus, WatchEvents and GetLease show
// for a sequence of engine states, including events that happened before the kit was up.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { credentials } from "@grpc/grpc-js";
import { runDaemon, type DaemonHandle } from "@routerd/daemon-kit";
import { ConditionStatus, connectDaemon, unixTarget, type DaemonConnection, type Event } from "@routerd/rpc";
import { Dhcpv4Client, Dhcpv4Service, type ClientState } from "@routerd/rpc/gen/routerd/dhcpv4/v1/dhcpv4";
import { pino } from "pino";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dhcpv4Server } from "./grpc-service.js";
import { leaseFromAck } from "./lease.js";
import { LeaseReporter } from "./lease-reporter.js";
import { DAEMON_NAME, socketPathOf } from "./names.js";
import { MessageType } from "./options.js";
import { dhcpv4LeaseJson } from "./status-view.js";
import { reply } from "./test-support/replies.js";

const T0 = Date.now();
const r = leaseFromAck(reply({ type: MessageType.Ack, xid: 1, yiaddr: "192.0.2.9", leaseTime: 600, mask: "255.255.255.0", routers: ["192.0.2.1"], dns: ["192.0.2.53"] }), T0);
if (!r.ok) throw new Error(r.error);
const lease = r.lease;

const dir = mkdtempSync(join(tmpdir(), "rd-d4rep-"));
const runDir = join(dir, "run");
const identity = { interface: "wan0", hardwareAddress: "02:00:5e:10:20:30", clientId: "01:02:00:5e:10:20:30" };
const reporter = new LeaseReporter("wan", () => identity);
let daemon: DaemonHandle;
let conn: DaemonConnection;

async function resource() {
  const s = await conn.getStatus();
  return s.resources.find((x) => x.name === "wan");
}

function getLease(): Promise<ClientState> {
  const c = new Dhcpv4Client(unixTarget(socketPathOf(runDir, "wan")), credentials.createInsecure());
  return new Promise((resolve, reject) =>
    c.getLease({}, (err, res) => {
      c.close();
      if (err) reject(err);
      else resolve(res.client!);
    }),
  );
}

async function events(): Promise<Event[]> {
  const out: Event[] = [];
  const ac = new AbortController();
  const t = setTimeout(() => ac.abort(), 300);
  try {
    for await (const e of conn.watchEvents({ afterSeq: 0, topicPrefixes: ["dhcpv4."], signal: ac.signal })) out.push(e);
  } catch {
    /* aborted */
  }
  clearTimeout(t);
  return out;
}

beforeAll(async () => {
  // Before the kit: INIT-REBOOT with a stored lease, then the server's ACK.
  reporter.onState({ phase: "rebooting", lease });
  reporter.onState({ phase: "bound", lease });
  reporter.onEvent({ type: "bound", lease });
  daemon = await runDaemon({
    name: DAEMON_NAME,
    instance: "wan",
    runDir,
    stateDir: join(dir, "state"),
    logger: pino({ level: "silent" }),
    handleSignals: false,
    services: () => [{ definition: Dhcpv4Service, implementation: dhcpv4Server(() => reporter.view()) }],
  });
  reporter.attach(daemon);
  conn = await connectDaemon(socketPathOf(runDir, "wan"));
});

afterAll(async () => {
  conn?.close();
  reporter.close();
  await daemon?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("lease reporter", () => {
  it("publishes the held lease as resource <instance> with the lease JSON, and replays events from before the kit", async () => {
    const res = await resource();
    expect(res).toMatchObject({ name: "wan", kind: "DHCPv4Client", phase: "Bound", message: "192.0.2.9/24 from 192.0.2.1" });
    expect(JSON.parse(res!.detailsJson)).toEqual(dhcpv4LeaseJson(lease));
    expect(res!.conditions.find((c) => c.type === "LeaseHeld")?.reason).toBe("Bound");
    const seen = await events();
    expect(seen.map((e) => [e.topic, e.resource])).toEqual([["dhcpv4.lease.bound", "wan"]]);
    expect(seen[0]!.attributes.address).toBe("192.0.2.9");
  });

  it("answers GetLease with the identity, state and the whole lease", async () => {
    const c = await getLease();
    expect(c).toMatchObject({ phase: "Bound", state: "bound", interface: "wan0", hardwareAddress: identity.hardwareAddress, clientId: identity.clientId, held: true, resumed: false, lastEvent: "bound" });
    expect(c.lease).toMatchObject({ address: "192.0.2.9", prefixLength: 24, serverId: "192.0.2.1", routers: ["192.0.2.1"], dnsServers: ["192.0.2.53"], leaseTime: 600 });
    expect(c.lease?.expiresAt?.getTime()).toBe(lease.expiresAt);
  });

  it("keeps the lease through renewing, and drops details and the condition when it is released", async () => {
    reporter.onState({ phase: "renewing", lease });
    expect((await resource())?.phase).toBe("Renewing");
    reporter.onState({ phase: "idle", lease: null });
    reporter.onEvent({ type: "released", lease });
    const res = await resource();
    expect(res).toMatchObject({ phase: "Released", detailsJson: "", message: "released 192.0.2.9/24 from 192.0.2.1" });
    expect(res!.conditions.find((c) => c.type === "LeaseHeld")).toMatchObject({ status: ConditionStatus.CONDITION_STATUS_FALSE, reason: "Released" });
    expect((await getLease())).toMatchObject({ held: false, lease: undefined, lastEvent: "released" });
  });

  it("leaves a held status in place when the engine stops without a release (the stored lease resumes)", async () => {
    reporter.onState({ phase: "bound", lease });
    reporter.onState({ phase: "stopped", lease });
    expect((await resource())?.phase).toBe("Bound");
    reporter.onState({ phase: "stopped", lease: null });
    expect((await resource())?.phase).toBe("Stopped");
  });
});

// The daemon form in-process: a real runDaemon socket in a temp dir, the real client engine, and a
// scripted server behind the transport seam. Checks the contract routerd core reads over the socket.
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { credentials } from "@grpc/grpc-js";
import { connectDaemon, daemonSocketPath, unixTarget, type DaemonConnection, type Event } from "@routerd/rpc";
import { Dhcpv6Client as Dhcpv6RpcClient, type Binding } from "@routerd/rpc/gen/routerd/dhcpv6/v1/dhcpv6";
import pino from "pino";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { decodeMessage, encodeMessage, type Dhcp6Message } from "./codec.js";
import { MessageType } from "./constants.js";
import { DAEMON_NAME, startDhcpv6Daemon, type Dhcpv6Daemon } from "./daemon.js";
import { findOption, type Dhcp6Option } from "./options.js";
import { SERVER_A, iaPd } from "./testing/fsm-sim.js";
import type { TransportFactory, TransportHandlers } from "./transport.js";

/** A DHCPv6 server behind the transport seam: answers with whatever `prefixes` says right now. */
class ScriptedServer {
  prefixes: Array<{ prefix: string; preferred: number; valid: number }> = [{ prefix: "2001:db8:1000::", preferred: 30, valid: 60 }];
  readonly received: number[] = [];
  private handlers: TransportHandlers | undefined;

  readonly factory: TransportFactory = (_ifname, handlers) => {
    this.handlers = handlers;
    return {
      localAddress: "fe80::1",
      open: () => setImmediate(() => handlers.onReady("fe80::1")),
      send: async (bytes) => {
        const decoded = decodeMessage(bytes);
        if (decoded.ok) setImmediate(() => this.answer(decoded.message));
        return true;
      },
      close: async () => undefined,
    };
  };

  private answer(m: Dhcp6Message): void {
    this.received.push(m.type);
    const clientId = findOption(m.options, "client-id")!.duid;
    const options: Dhcp6Option[] = [{ kind: "client-id", duid: clientId }, { kind: "server-id", duid: SERVER_A }];
    if (m.type === MessageType.RELEASE) {
      options.push({ kind: "status-code", status: 0, message: "released" });
    } else {
      if (m.type === MessageType.SOLICIT) options.push({ kind: "rapid-commit" });
      options.push(iaPd(this.prefixes.map((p) => ({ ...p, length: 56 })), { t1: 10, t2: 20 }));
      options.push({ kind: "dns-servers", addresses: ["2001:db8::53"] }, { kind: "domain-list", names: ["example.net"] });
    }
    this.handlers!.onMessage(encodeMessage({ type: MessageType.REPLY, xid: m.xid, options }), "fe80::2%wan0");
  }
}

let dir: string;
let server: ScriptedServer;
let running: Dhcpv6Daemon | undefined;
let conn: DaemonConnection | undefined;

const logger = pino({ level: "silent" });
const start = () =>
  startDhcpv6Daemon({
    instance: "isp",
    runDir: join(dir, "run"),
    stateDir: join(dir, "state"),
    logger,
    handleSignals: false,
    client: { interface: "wan0", prefixLength: 56, transport: server.factory },
  });

async function resource(c: DaemonConnection) {
  const status = await c.getStatus();
  return status.resources.find((r) => r.name === "isp");
}

async function until<T>(what: string, fn: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function getLease(): Promise<Binding> {
  const client = new Dhcpv6RpcClient(unixTarget(daemonSocketPath(join(dir, "run"), DAEMON_NAME, "isp")), credentials.createInsecure());
  return new Promise((resolve, reject) =>
    client.getLease({}, (err, reply) => {
      client.close();
      if (err) reject(err);
      else resolve(reply.binding!);
    }),
  );
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "rd6-daemon-"));
  server = new ScriptedServer();
});

afterEach(async () => {
  conn?.close();
  conn = undefined;
  if (running) await running.daemon.stop("test done");
  running = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe("routerd-dhcpv6-client as a daemon", () => {
  it("reports the delegated prefix as resource <instance> with the DelegatedPrefix details, and its events", async () => {
    running = await start();
    conn = await connectDaemon(daemonSocketPath(join(dir, "run"), DAEMON_NAME, "isp"));
    const bound = await until("Bound", async () => {
      const r = await resource(conn!);
      return r?.phase === "Bound" ? r : undefined;
    });
    expect(bound.kind).toBe("DHCPv6PrefixDelegation");
    const details = JSON.parse(bound.detailsJson);
    expect(details).toMatchObject({ prefix: "2001:db8:1000::", prefixLength: 56, preferredLifetime: 30, validLifetime: 60, dnsServers: ["2001:db8::53"], domainSearch: ["example.net"] });
    expect(Date.parse(details.expiresAt) - Date.now()).toBeGreaterThan(55_000);
    expect(bound.conditions.find((c) => c.type === "PrefixHeld")?.status).toBeDefined();

    const events: Event[] = [];
    for await (const e of conn.watchEvents({ afterSeq: 0, topicPrefixes: ["dhcpv6."] })) {
      events.push(e);
      if (e.topic === "dhcpv6.prefix.acquired") break;
    }
    expect(events.map((e) => e.topic)).toContain("dhcpv6.prefix.acquired");
    expect(events.at(-1)!.attributes.prefixes).toBe("2001:db8:1000::/56");
    // Engine state lives in the kit's per-instance state dir.
    expect(existsSync(join(dir, "state", DAEMON_NAME, "isp", "duid"))).toBe(true);
    expect(JSON.parse(readFileSync(join(dir, "state", DAEMON_NAME, "isp", "lease.json"), "utf8")).lastPrefix).toEqual({ prefix: "2001:db8:1000::", length: 56 });

    const binding = await getLease();
    expect(binding.phase).toBe("Bound");
    expect(binding.prefixes.map((p) => `${p.prefix}/${p.prefixLength}`)).toEqual(["2001:db8:1000::/56"]);
    expect(binding.information?.dnsServers).toEqual(["2001:db8::53"]);
  });

  it("lists a prefix the server withdrew, and the renew/release commands work", async () => {
    running = await start();
    conn = await connectDaemon(daemonSocketPath(join(dir, "run"), DAEMON_NAME, "isp"));
    await until("Bound", async () => ((await resource(conn!))?.phase === "Bound" ? true : undefined));

    server.prefixes = [
      { prefix: "2001:db8:2000::", preferred: 30, valid: 60 },
      { prefix: "2001:db8:1000::", preferred: 0, valid: 0 },
    ];
    const renew = await conn.command("renew");
    expect(renew.ok).toBe(true);
    const changed = await until("the new prefix", async () => {
      const r = await resource(conn!);
      const d = r?.detailsJson ? JSON.parse(r.detailsJson) : undefined;
      return d?.prefix === "2001:db8:2000::" ? d : undefined;
    });
    expect(changed.withdrawn).toEqual([{ prefix: "2001:db8:1000::", prefixLength: 56, until: expect.any(String) }]);

    const release = await conn.command("release");
    expect(release.ok).toBe(true);
    const after = await resource(conn);
    expect(after?.phase).toBe("Released");
    expect(server.received).toContain(MessageType.RELEASE);
    expect(JSON.parse(after!.detailsJson).withdrawn.map((w: { prefix: string }) => w.prefix).sort()).toEqual(["2001:db8:1000::", "2001:db8:2000::"]);
  });

  it("keeps reporting the server's last DNS information without a prefix, also after a restart", async () => {
    running = await start();
    conn = await connectDaemon(daemonSocketPath(join(dir, "run"), DAEMON_NAME, "isp"));
    await until("Bound", async () => ((await resource(conn!))?.phase === "Bound" ? true : undefined));
    conn.close();
    conn = undefined;
    await running.daemon.stop("test"); // releases: no lease is stored
    // The next run hears nothing from any server.
    const silent: TransportFactory = (_ifname, handlers) => ({
      localAddress: "fe80::1",
      open: () => setImmediate(() => handlers.onReady("fe80::1")),
      send: async () => true,
      close: async () => undefined,
    });
    running = await startDhcpv6Daemon({ instance: "isp", runDir: join(dir, "run"), stateDir: join(dir, "state"), logger, handleSignals: false, client: { interface: "wan0", transport: silent } });
    const r = running.daemon.status.resources().find((x) => x.name === "isp")!;
    expect(r.phase).not.toMatch(/^(Bound|Renewing|Rebinding)$/);
    expect(r.details).toMatchObject({ dnsServers: ["2001:db8::53"], domainSearch: ["example.net"] });
  });

  it("sends RELEASE when it stops, and a restart reports the stored binding as held while it is checked", async () => {
    running = await start();
    conn = await connectDaemon(daemonSocketPath(join(dir, "run"), DAEMON_NAME, "isp"));
    await until("Bound", async () => ((await resource(conn!))?.phase === "Bound" ? true : undefined));
    conn.close();
    conn = undefined;
    await running.daemon.stop("test");
    running = undefined;
    expect(server.received.at(-1)).toBe(MessageType.RELEASE);

    // Without release the stored lease survives the stop: the next start verifies it (Rebind) and keeps it.
    server = new ScriptedServer();
    const noRelease = await startDhcpv6Daemon({
      instance: "isp",
      runDir: join(dir, "run"),
      stateDir: join(dir, "state"),
      logger,
      handleSignals: false,
      client: { interface: "wan0", prefixLength: 56, releaseOnStop: false, transport: server.factory },
    });
    conn = await connectDaemon(daemonSocketPath(join(dir, "run"), DAEMON_NAME, "isp"));
    await until("Bound", async () => ((await resource(conn!))?.phase === "Bound" ? true : undefined));
    conn.close();
    conn = undefined;
    await noRelease.daemon.stop("test");
    expect(server.received).not.toContain(MessageType.RELEASE);

    server = new ScriptedServer();
    running = await start();
    // Before the interface is even ready the stored, unexpired binding is reported as held.
    const first = running.daemon.status.resources().find((r) => r.name === "isp");
    expect(first?.phase).toBe("Rebinding");
    expect(first?.details?.prefix).toBe("2001:db8:1000::");
    conn = await connectDaemon(daemonSocketPath(join(dir, "run"), DAEMON_NAME, "isp"));
    await until("Bound", async () => ((await resource(conn!))?.phase === "Bound" ? true : undefined));
    expect(server.received[0]).toBe(MessageType.REBIND);
  });
});

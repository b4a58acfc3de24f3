// A real daemon on a temp Unix socket, called over gRPC: GetStatus, WatchEvents, Command, Health.
import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { credentials, makeGenericClientConstructor, status as grpcStatus, type ServiceDefinition, type ServiceError } from "@grpc/grpc-js";
import {
  ConditionStatus,
  HealthCheckResponse_ServingStatus as Serving,
  HealthClient,
  HealthStatus,
  Phase,
  Severity,
  connectDaemon,
  unixTarget,
  type DaemonConnection,
  type Event,
} from "@routerd/rpc";
import { afterEach, describe, expect, it } from "vitest";
import type { DaemonHandle, RunDaemonOptions } from "./options.js";
import { runDaemon } from "./run-daemon.js";
import { recordingLogger } from "./testing/test-support.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function start(extra: Partial<RunDaemonOptions> = {}): Promise<{ daemon: DaemonHandle; client: DaemonConnection; root: string }> {
  const root = mkdtempSync(join(tmpdir(), "rd-kit-"));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const daemon = await runDaemon({
    name: "echo",
    instance: "t1",
    runDir: join(root, "run"),
    stateDir: join(root, "state"),
    logger: recordingLogger().logger,
    handleSignals: false,
    env: {},
    ...extra,
  });
  cleanups.push(async () => void (await daemon.stop("test over")));
  const client = await connectDaemon(daemon.socketPath);
  cleanups.push(() => client.close());
  return { daemon, client, root };
}

async function take(stream: AsyncIterable<Event>, n: number): Promise<Event[]> {
  const out: Event[] = [];
  if (n === 0) return out;
  for await (const e of stream) {
    out.push(e);
    if (out.length === n) break;
  }
  return out;
}

describe("runDaemon over gRPC", () => {
  it("merges live details, computed at each GetStatus, over the set ones", async () => {
    let calls = 0;
    const { daemon, client } = await start({ liveDetails: () => ({ calls: ++calls }) });
    daemon.status.setDetails({ interface: "eth0", calls: 0 });
    expect(JSON.parse((await client.getStatus()).detailsJson)).toEqual({ interface: "eth0", calls: 1 });
    expect(JSON.parse((await client.getStatus()).detailsJson)).toEqual({ interface: "eth0", calls: 2 });
  });

  it("answers GetStatus with phase, health, resources and conditions", async () => {
    const { daemon, client } = await start();
    daemon.status.setResource("wan", { kind: "DHCPv4Lease", phase: "Bound", details: { address: "192.0.2.10" } });
    daemon.status.setResourceCondition("wan", { type: "Bound", status: "True", reason: "Ack" });
    daemon.status.setCondition({ type: "ConfigLoaded", status: "True" });
    daemon.status.setDetails({ interface: "eth0" });

    const st = await client.getStatus();
    expect(st).toMatchObject({ daemon: "echo", instance: "t1", pid: process.pid, phase: Phase.PHASE_RUNNING });
    expect(st.health).toBe(HealthStatus.HEALTH_STATUS_SERVING);
    expect(st.startedAt).toBeInstanceOf(Date);
    expect(JSON.parse(st.detailsJson)).toEqual({ interface: "eth0" });
    expect(st.commands).toEqual(["reload"]);
    expect(st.conditions.map((c) => [c.type, c.status])).toEqual([["ConfigLoaded", ConditionStatus.CONDITION_STATUS_TRUE]]);
    const [wan] = st.resources;
    expect(wan).toMatchObject({ name: "wan", kind: "DHCPv4Lease", phase: "Bound" });
    expect(JSON.parse(wan!.detailsJson)).toEqual({ address: "192.0.2.10" });
    expect(wan!.conditions[0]).toMatchObject({ type: "Bound", reason: "Ack", status: ConditionStatus.CONDITION_STATUS_TRUE });
    expect(wan!.conditions[0]!.lastTransitionTime?.toISOString()).toBe(daemon.status.resource("wan")!.conditions[0]!.lastTransitionTime);
    expect(st.lastEventSeq).toBe(daemon.events.emit({ topic: "x", message: "x" }).seq - 1);
    // The process's memory as the kernel and V8 see it (this test process).
    expect(st.process!.rssBytes).toBeGreaterThan(st.process!.heapUsedBytes);
    expect(st.process!.heapUsedBytes).toBeGreaterThan(0);
    expect(st.process!.heapTotalBytes).toBeGreaterThanOrEqual(st.process!.heapUsedBytes);

    daemon.status.setPhase("Degraded");
    const degraded = await client.getStatus();
    expect([degraded.phase, degraded.health]).toEqual([Phase.PHASE_DEGRADED, HealthStatus.HEALTH_STATUS_SERVING]);
  });

  it("creates the socket with mode 0600 by default", async () => {
    const { daemon } = await start();
    expect(statSync(daemon.socketPath).mode & 0o777).toBe(0o600);
  });

  it("gives a socket group read-write access when asked", async () => {
    const { daemon } = await start({ socketGroup: 65534 });
    const st = statSync(daemon.socketPath);
    expect([st.mode & 0o777, st.gid]).toEqual([0o660, 65534]);
  });

  it("replays events after a cursor, then streams live ones, filtered by topic", async () => {
    const { daemon, client } = await start();
    const a = daemon.events.emit({ topic: "echo.a", message: "a", resource: "wan", severity: "warning", attributes: { n: 1 } });
    daemon.events.emit({ topic: "other.b", message: "b" });
    daemon.events.emit({ topic: "echo.c", message: "c" });

    const replayed = client.watchEvents({ afterSeq: a.seq - 1, topicPrefixes: ["echo."] });
    const first = await take(replayed, 2);
    expect(first.map((e) => e.message)).toEqual(["a", "c"]);
    expect(first[0]).toMatchObject({ seq: a.seq, topic: "echo.a", resource: "wan", severity: Severity.SEVERITY_WARNING, attributes: { n: "1" } });
    expect(first[0]!.time?.toISOString()).toBe(a.time);

    const ac = new AbortController();
    const live = client.watchEvents({ signal: ac.signal }); // no cursor: live only
    let received: Awaited<ReturnType<typeof take>> | undefined;
    const got = take(live, 1).then((e) => (received = e));
    // Live events until the stream (opened at some moment on a busy machine) delivers one: the first it delivers
    // must be one of them, never an earlier event replayed.
    const emitted: number[] = [];
    while (received === undefined && emitted.length < 300) {
      emitted.push(daemon.events.emit({ topic: "echo.d", message: "d" }).seq);
      await Promise.race([got, new Promise((r) => setTimeout(r, 50))]);
    }
    await got;
    expect(received!).toHaveLength(1);
    expect(emitted).toContain(received![0]!.seq);
  });

  it("cuts off a watcher that stops reading, telling it where to resume", async () => {
    const { daemon, client } = await start({ events: { ringSize: 10 } });
    const call = client.daemon.watchEvents({ afterSeq: 0, topicPrefixes: [] });
    let received = 0;
    let lastSeq = 0;
    const ended = new Promise<ServiceError>((resolve) => call.on("error", resolve));
    await new Promise<void>((ready) =>
      call.on("data", (e: Event) => {
        received += 1;
        lastSeq = e.seq;
        ready();
      }),
    );
    call.pause(); // a client that stops reading: flow control backs events up on the server
    let failed: ServiceError | undefined;
    void ended.then((e) => (failed = e));
    const big = "x".repeat(4096);
    for (let batch = 0; batch < 100 && failed === undefined; batch++) {
      for (let i = 0; i < 50; i++) daemon.events.emit({ topic: "flood", message: big });
      await new Promise((r) => setTimeout(r, 10));
      if (batch === 20) call.resume(); // let the queued events and the final status through
    }
    const err = await ended;
    expect(err.code).toBe(grpcStatus.RESOURCE_EXHAUSTED);
    const resumeAt = Number(/resume with after_seq=(\d+)$/.exec(err.details)?.[1]);
    expect(resumeAt).toBe(lastSeq); // everything up to the cursor was delivered before the cut
    expect(received).toBe(resumeAt);
    expect(resumeAt).toBeLessThan(daemon.events.emit({ topic: "x", message: "" }).seq);
  });

  it("runs commands from the table and reports unknown or failing ones as ok=false", async () => {
    let reloaded = 0;
    const { client } = await start({
      commands: {
        renew: (args, ctx) => {
          ctx.status.setResource("wan", { phase: "Renewing" });
          return { message: `renewing ${args.iface}`, details: { iface: args.iface ?? "" } };
        },
        release: () => {
          throw new Error("no lease to release");
        },
      },
      onReload: () => void reloaded++,
    });
    const events = client.watchEvents({ afterSeq: 0, topicPrefixes: ["daemon.command", "daemon.reloaded"] });

    expect(await client.command("renew", { iface: "eth0" })).toEqual({ ok: true, message: "renewing eth0", detailsJson: '{"iface":"eth0"}' });
    expect(await client.command("release")).toMatchObject({ ok: false, message: "no lease to release" });
    const unknown = await client.command("frobnicate");
    expect(unknown.ok).toBe(false);
    expect(unknown.message).toBe('unknown command "frobnicate"; this daemon accepts: release, reload, renew');
    expect(await client.command("reload")).toMatchObject({ ok: true });
    expect(reloaded).toBe(1);
    expect((await client.getStatus()).resources[0]?.phase).toBe("Renewing");

    const seen = await take(events, 5);
    expect(seen.map((e) => `${e.topic}:${e.attributes.command ?? ""}:${e.attributes.ok ?? ""}`)).toEqual([
      "daemon.command:renew:true",
      "daemon.command:release:false",
      "daemon.command:frobnicate:false",
      "daemon.reloaded::",
      "daemon.command:reload:true",
    ]);
  });

  it("refuses a reload command in the table", async () => {
    await expect(start({ commands: { reload: () => undefined } })).rejects.toMatchObject({ code: "INVALID_OPTIONS" });
  });

  it("serves grpc.health.v1 Check and Watch for the daemon and its services", async () => {
    const echoDefinition: ServiceDefinition = {
      say: {
        path: "/routerd.test.v1.Echo/Say",
        requestStream: false,
        responseStream: false,
        requestSerialize: (v: Buffer) => v,
        requestDeserialize: (v: Buffer) => v,
        responseSerialize: (v: Buffer) => v,
        responseDeserialize: (v: Buffer) => v,
        originalName: "say",
      },
    };
    const { daemon, client } = await start({
      services: (ctx) => [
        {
          definition: echoDefinition,
          implementation: {
            say: (call: { request: Buffer }, cb: (e: null, v: Buffer) => void) => cb(null, Buffer.from(`${ctx.instance}:${call.request.toString()}`)),
          },
        },
      ],
    });
    expect(await client.checkHealth()).toBe(Serving.SERVING);
    expect(await client.checkHealth("routerd.daemon.v1.Daemon")).toBe(Serving.SERVING);
    expect(await client.checkHealth("routerd.test.v1.Echo")).toBe(Serving.SERVING);
    await expect(client.checkHealth("no.such.Service")).rejects.toMatchObject({ code: grpcStatus.NOT_FOUND });

    const EchoClient = makeGenericClientConstructor(echoDefinition, "Echo");
    const echo = new EchoClient(unixTarget(daemon.socketPath), credentials.createInsecure());
    const said = await new Promise<Buffer>((ok, fail) =>
      (echo as unknown as { say: (r: Buffer, cb: (e: ServiceError | null, v: Buffer) => void) => void }).say(Buffer.from("hi"), (e, v) => (e ? fail(e) : ok(v))),
    );
    echo.close();
    expect(said.toString()).toBe("t1:hi");

    const health = new HealthClient(unixTarget(daemon.socketPath), credentials.createInsecure());
    const watch = health.watch({ service: "" });
    const statuses: Serving[] = [];
    const ended = new Promise<void>((resolve) => {
      watch.on("data", (r: { status: Serving }) => {
        statuses.push(r.status);
        if (statuses.length === 1) void daemon.stop("health watch test");
      });
      watch.on("end", resolve);
      watch.on("error", () => resolve());
    });
    await ended;
    health.close();
    expect(statuses).toEqual([Serving.SERVING, Serving.NOT_SERVING]);
  });
});

// Start refusals, stale sockets, graceful stop and resume after restart, on real temp sockets.
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DaemonUnavailableError, Phase, connectDaemon, type Event } from "@routerd/rpc";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { DaemonHandle, RunDaemonOptions } from "./options.js";
import { runDaemon } from "./run-daemon.js";
import { STATE_FILE } from "./state-file.js";
import { createStaleSocket, recordingLogger } from "./testing/test-support.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function tempRoot(): string {
  const root = mkdtempSync(join(tmpdir(), "rd-kit-"));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

function optionsIn(root: string, extra: Partial<RunDaemonOptions> = {}): RunDaemonOptions {
  return {
    name: "echo",
    instance: "t1",
    runDir: join(root, "run"),
    stateDir: join(root, "state"),
    logger: recordingLogger().logger,
    handleSignals: false,
    env: {},
    ...extra,
  };
}

async function start(options: RunDaemonOptions): Promise<DaemonHandle> {
  const daemon = await runDaemon(options);
  cleanups.push(async () => void (await daemon.stop("test over")));
  return daemon;
}

async function collect(stream: AsyncIterable<Event>): Promise<Event[]> {
  const out: Event[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

describe("runDaemon start", () => {
  it("removes a stale socket left by a killed daemon and says so", async () => {
    const root = tempRoot();
    const socketPath = join(root, "run", "echo", "t1.sock");
    mkdirSync(join(root, "run", "echo"), { recursive: true });
    await createStaleSocket(socketPath);
    expect(lstatSync(socketPath).isSocket()).toBe(true);

    const { logger, lines } = recordingLogger();
    const daemon = await start(optionsIn(root, { logger }));
    expect(lines.some((l) => l.msg === "removed stale socket" && l.socket === socketPath)).toBe(true);
    const client = await connectDaemon(daemon.socketPath);
    expect((await client.getStatus()).phase).toBe(Phase.PHASE_RUNNING);
    client.close();
  });

  it("refuses to start while another instance answers on the socket, and leaves it serving", async () => {
    const root = tempRoot();
    const first = await start(optionsIn(root));
    const second = runDaemon(optionsIn(root));
    await expect(second).rejects.toMatchObject({ name: "DaemonStartError", code: "ALREADY_RUNNING", socketPath: first.socketPath, retryable: true });
    await expect(second).rejects.toThrow(/another instance already serves .*t1\.sock; stop it first/);
    const client = await connectDaemon(first.socketPath);
    expect((await client.getStatus()).pid).toBe(process.pid);
    client.close();
  });

  it("refuses to start over something that is not a socket, and leaves it alone", async () => {
    const root = tempRoot();
    const path = join(root, "run", "echo", "t1.sock");
    mkdirSync(join(root, "run", "echo"), { recursive: true });
    writeFileSync(path, "not a socket");
    await expect(runDaemon(optionsIn(root))).rejects.toMatchObject({ code: "NOT_A_SOCKET" });
    expect(readFileSync(path, "utf8")).toBe("not a socket");
  });

  it("rejects bad names, unknown groups and socket paths longer than sun_path", async () => {
    const root = tempRoot();
    await expect(runDaemon(optionsIn(root, { instance: "../etc" }))).rejects.toMatchObject({ code: "INVALID_OPTIONS" });
    await expect(runDaemon(optionsIn(root, { socketGroup: "rd-no-such-group-x" }))).rejects.toMatchObject({ code: "SOCKET_GROUP_UNKNOWN" });
    await expect(runDaemon(optionsIn(root, { runDir: join(root, "r".repeat(120)) }))).rejects.toMatchObject({
      code: "SOCKET_PATH_TOO_LONG",
    });
  });
});

describe("runDaemon stop", () => {
  it("aborts ctx.signal, runs onStop, ends watch streams, removes the socket and flushes state", async () => {
    const root = tempRoot();
    let signalAbortedInOnStop = false;
    const daemon = await start(
      optionsIn(root, {
        onStop: (ctx) => {
          signalAbortedInOnStop = ctx.signal.aborted;
        },
      }),
    );
    daemon.status.setResource("wan", { phase: "Bound" });
    const client = await connectDaemon(daemon.socketPath);
    const watching = collect(client.watchEvents({ afterSeq: 0 }));
    await vi.waitFor(async () => expect((await client.getStatus()).lastEventSeq).toBeGreaterThan(0));

    const result = await daemon.stop("test stop");
    expect(result).toEqual({ reason: "test stop", clean: true });
    expect(await daemon.done).toBe(result);
    expect(signalAbortedInOnStop).toBe(true);
    expect((await watching).map((e) => e.topic)).toEqual(["daemon.started", "daemon.stopping"]);
    expect(existsSync(daemon.socketPath)).toBe(false);
    const saved = JSON.parse(readFileSync(join(daemon.stateDir, STATE_FILE), "utf8")) as { status: { resources: { name: string }[] } };
    expect(saved.status.resources.map((r) => r.name)).toEqual(["wan"]);
    client.close();

    const err = await connectDaemon(daemon.socketPath).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DaemonUnavailableError);
    expect(err).toMatchObject({ code: "ENOENT", socketPath: daemon.socketPath });
    expect((err as Error).message).toContain(`no daemon socket at ${daemon.socketPath}: routerd-echo@t1 is not running`);
  });

  it("stops when the caller's AbortSignal aborts", async () => {
    const root = tempRoot();
    const ac = new AbortController();
    const daemon = await start(optionsIn(root, { signal: ac.signal }));
    ac.abort();
    expect(await daemon.done).toEqual({ reason: "aborted", clean: true });
    expect(existsSync(daemon.socketPath)).toBe(false);
  });

  it("gives up on a hanging onStop after stopTimeoutMs and still closes everything", async () => {
    const root = tempRoot();
    const daemon = await start(optionsIn(root, { stopTimeoutMs: 200, onStop: () => new Promise<void>(() => undefined) }));
    expect(await daemon.stop("hang")).toEqual({ reason: "hang", clean: false });
    expect(existsSync(daemon.socketPath)).toBe(false);
  });

  it("writes status changes to state.json without waiting for stop", async () => {
    const root = tempRoot();
    const daemon = await start(optionsIn(root, { stateFlushDelayMs: 5 }));
    daemon.status.setResourceCondition("wan", { type: "Bound", status: "True" });
    await vi.waitFor(() => {
      const saved = JSON.parse(readFileSync(join(daemon.stateDir, STATE_FILE), "utf8")) as { status: { resources: unknown[] } };
      expect(saved.status.resources).toHaveLength(1);
    });
    expect(statSync(join(daemon.stateDir, STATE_FILE)).mode & 0o777).toBe(0o600);
  });
});

describe("runDaemon restart", () => {
  it("resumes saved data, status and event seq, and replays events from before the restart", async () => {
    const root = tempRoot();
    const first = await start(optionsIn(root));
    first.state.save({ lease: "192.0.2.10" });
    first.status.setResourceCondition("wan", { type: "Bound", status: "True", reason: "Ack" });
    const bound = first.events.emit({ topic: "dhcpv4.lease.bound", message: "bound", resource: "wan" });
    const transition = first.status.resource("wan")!.conditions[0]!.lastTransitionTime;
    await first.stop("restart");

    const second = await start(optionsIn(root));
    expect(second.state.data).toEqual({ lease: "192.0.2.10" });
    expect(second.status.resource("wan")?.conditions[0]).toMatchObject({ status: "True", lastTransitionTime: transition });
    const client = await connectDaemon(second.socketPath);
    const st = await client.getStatus();
    expect(st.resources.map((r) => r.name)).toEqual(["wan"]);
    expect(st.lastEventSeq).toBeGreaterThan(bound.seq);

    const replay: Event[] = [];
    for await (const e of client.watchEvents({ afterSeq: bound.seq - 1 })) {
      replay.push(e);
      if (e.topic === "daemon.started") break;
    }
    expect(replay.map((e) => [e.seq, e.topic])).toEqual([
      [bound.seq, "dhcpv4.lease.bound"],
      [bound.seq + 1, "daemon.stopping"],
      [bound.seq + 2, "daemon.started"],
    ]);
    client.close();
  });
});

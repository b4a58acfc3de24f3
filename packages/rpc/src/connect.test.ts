// connectDaemon against a real grpc-js server on a temp socket, and against missing, stale and wrong paths.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Server, ServerCredentials } from "@grpc/grpc-js";
import { afterEach, describe, expect, it } from "vitest";
import { connectDaemon } from "./connect.js";
import { DaemonUnavailableError, diagnoseSocket } from "./daemon-unavailable.js";
import { HealthCheckResponse_ServingStatus, HealthService, type HealthServer } from "./gen/grpc/health/v1/health.js";
import { DaemonService, Phase, type DaemonServer } from "./gen/routerd/daemon/v1/daemon.js";
import { unixTarget } from "./socket-path.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "rd-rpc-"));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** A socket file nobody listens on, as left by kill -9. */
async function staleSocket(path: string): Promise<void> {
  const script = `require("node:net").createServer().listen(${JSON.stringify(path)}, () => process.kill(process.pid, "SIGKILL"));`;
  const child = spawn(process.execPath, ["-e", script], { stdio: "ignore" });
  await once(child, "exit");
}

async function serve(path: string): Promise<Server> {
  const daemon: DaemonServer = {
    getStatus: (_call, cb) => cb(null, { status: { daemon: "echo", instance: "a", pid: 7, phase: Phase.PHASE_RUNNING, health: 1, conditions: [], resources: [], detailsJson: "", commands: ["reload"], lastEventSeq: 3 } }),
    command: (call, cb) => cb(null, { ok: call.request.name === "reload", message: JSON.stringify(call.request.args), detailsJson: "" }),
    watchEvents: (call) => {
      for (let seq = (call.request.afterSeq ?? 0) + 1; seq <= 3; seq++) {
        call.write({ seq, time: new Date(0), topic: "t", severity: 2, resource: "", message: `e${seq}`, attributes: {} });
      }
      call.end();
    },
  };
  const health: HealthServer = {
    check: (_call, cb) => cb(null, { status: HealthCheckResponse_ServingStatus.SERVING }),
    watch: (call) => call.end(),
  };
  const server = new Server();
  server.addService(DaemonService, daemon);
  server.addService(HealthService, health);
  await new Promise<void>((ok, fail) => server.bindAsync(unixTarget(path), ServerCredentials.createInsecure(), (e) => (e ? fail(e) : ok())));
  cleanups.push(() => new Promise<void>((ok) => server.tryShutdown(() => ok())));
  return server;
}

describe("connectDaemon", () => {
  it("calls GetStatus, Command, Health and WatchEvents through one connection", async () => {
    const path = join(tempDir(), "a.sock");
    await serve(path);
    const client = await connectDaemon(path);
    cleanups.push(() => client.close());
    expect(await client.getStatus()).toMatchObject({ daemon: "echo", pid: 7, phase: Phase.PHASE_RUNNING, lastEventSeq: 3 });
    expect(await client.command("reload", { force: "1" })).toEqual({ ok: true, message: '{"force":"1"}', detailsJson: "" });
    expect(await client.checkHealth()).toBe(HealthCheckResponse_ServingStatus.SERVING);
    const seqs: number[] = [];
    for await (const e of client.watchEvents({ afterSeq: 1 })) seqs.push(e.seq);
    expect(seqs).toEqual([2, 3]);
  });

  it("says when the socket is missing", async () => {
    const path = join(tempDir(), "dhcpv4-client", "wan.sock");
    const err = await connectDaemon(path).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DaemonUnavailableError);
    expect(err).toMatchObject({ code: "ENOENT", socketPath: path });
    expect((err as Error).message).toBe(
      `no daemon socket at ${path}: routerd-dhcpv4-client@wan is not running (or was started with another --run-dir); start it, e.g. systemctl start routerd-dhcpv4-client@wan`,
    );
  });

  it("says when the socket is stale (nobody listens)", async () => {
    const path = join(tempDir(), "echo.sock");
    await staleSocket(path);
    const err = await connectDaemon(path).catch((e: unknown) => e);
    expect(err).toMatchObject({ name: "DaemonUnavailableError", code: "ECONNREFUSED" });
    expect((err as Error).message).toMatch(/refuses connections: .* has exited and left a stale socket; restart it/);
  });

  it("says when the path is not a socket", async () => {
    const path = join(tempDir(), "file.sock");
    writeFileSync(path, "");
    await expect(connectDaemon(path)).rejects.toMatchObject({ code: "ENOTSOCK" });
  });

  it("turns UNAVAILABLE on a later call into the reason, once the daemon is gone", async () => {
    const path = join(tempDir(), "b.sock");
    const server = await serve(path);
    const client = await connectDaemon(path);
    cleanups.push(() => client.close());
    await new Promise<void>((ok) => server.tryShutdown(() => ok()));
    await expect(client.getStatus({ timeoutMs: 2_000 })).rejects.toMatchObject({ name: "DaemonUnavailableError", code: "ENOENT" });
  });
});

describe("diagnoseSocket", () => {
  it("returns undefined for a live socket", async () => {
    const path = join(tempDir(), "live.sock");
    await serve(path);
    expect(await diagnoseSocket(path)).toBeUndefined();
  });
});

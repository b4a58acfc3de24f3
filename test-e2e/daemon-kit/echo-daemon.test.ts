// The example daemon as a real process: kill -9 and restart, a second instance, signals, systemd readiness.
import { execFileSync, spawn, type ChildProcess } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { HealthCheckResponse_ServingStatus, connectDaemon, diagnoseSocket, type DaemonConnection, type Event } from "@routerd/rpc";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";

const repo = new URL("../..", import.meta.url).pathname;
const echoBin = join(repo, "packages/daemon-kit/dist/testing/echo-daemon.js");

interface Running {
  child: ChildProcess;
  output: () => string;
  exited: Promise<[number | null, NodeJS.Signals | null]>;
  socketPath: string;
}

const children: ChildProcess[] = [];
const connections: DaemonConnection[] = [];
let root: string;

beforeAll(() => {
  // Spawned processes run dist/: build it from the current sources first (turbo skips it when unchanged).
  execFileSync(join(repo, "node_modules/.bin/turbo"), ["run", "build", "--filter=@routerd/daemon-kit", "--output-logs=errors-only"], {
    cwd: repo,
    stdio: "pipe",
  });
  root = mkdtempSync(join(tmpdir(), "rd-dk-e2e-"));
});

afterEach(() => {
  for (const c of connections.splice(0)) c.close();
  for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
});

afterAll(() => {
  rmSync(root, { recursive: true, force: true });
});

function spawnEcho(instance: string, args: string[] = [], env: NodeJS.ProcessEnv = {}): Running {
  const child = spawn(
    process.execPath,
    [echoBin, "--instance", instance, "--run-dir", join(root, "run"), "--state-dir", join(root, "state"), ...args],
    { env: { PATH: process.env.PATH, ...env }, stdio: ["ignore", "pipe", "pipe"] },
  );
  children.push(child);
  let text = "";
  child.stdout!.on("data", (b: Buffer) => (text += b.toString()));
  child.stderr!.on("data", (b: Buffer) => (text += b.toString()));
  const exited = once(child, "exit") as Promise<[number | null, NodeJS.Signals | null]>;
  return { child, output: () => text, exited, socketPath: join(root, "run", "echo", `${instance}.sock`) };
}

/** Waits until the daemon answers on its socket (or fails if the process exits first). */
async function ready(d: Running): Promise<DaemonConnection> {
  const deadline = Date.now() + 15_000;
  while (Date.now() < deadline) {
    if (d.child.exitCode !== null) throw new Error(`echo daemon exited with ${d.child.exitCode}:\n${d.output()}`);
    if ((await diagnoseSocket(d.socketPath)) === undefined && d.output().includes('"daemon listening"')) {
      const c = await connectDaemon(d.socketPath);
      connections.push(c);
      return c;
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`echo daemon did not start:\n${d.output()}`);
}

async function eventsUntil(c: DaemonConnection, afterSeq: number, lastTopic: string): Promise<Event[]> {
  const out: Event[] = [];
  for await (const e of c.watchEvents({ afterSeq })) {
    out.push(e);
    if (e.topic === lastTopic) break;
  }
  return out;
}

describe("echo daemon process", () => {
  it("after kill -9, a restart removes the stale socket and resumes state and event seq", async () => {
    const first = spawnEcho("crash");
    let c = await ready(first);
    await c.command("count");
    expect((await c.command("count")).message).toBe("2");
    const marker = await c.command("emit", { topic: "echo.before-crash", message: "still here" });
    const markerSeq = (JSON.parse(marker.detailsJson) as { seq: number }).seq;
    const seqBefore = (await c.getStatus()).lastEventSeq;

    first.child.kill("SIGKILL");
    await first.exited;
    expect(statSync(first.socketPath).isSocket()).toBe(true); // left behind
    expect(await diagnoseSocket(first.socketPath)).toBe("ECONNREFUSED");

    const second = spawnEcho("crash");
    c = await ready(second);
    expect(second.output()).toContain('"msg":"removed stale socket"');
    const st = await c.getStatus();
    expect(st.pid).toBe(second.child.pid);
    expect(JSON.parse(st.detailsJson)).toMatchObject({ counter: 2 });
    expect(st.lastEventSeq).toBeGreaterThan(seqBefore);
    expect((await c.command("count")).message).toBe("3");

    const replay = await eventsUntil(c, markerSeq - 1, "daemon.started");
    expect(replay[0]).toMatchObject({ seq: markerSeq, topic: "echo.before-crash", message: "still here" });
    expect(replay.map((e) => e.seq)).toEqual(replay.map((_, i) => markerSeq + i)); // no gaps, no reuse
  });

  it("a second instance refuses to start while the first answers, and the first keeps serving", async () => {
    const first = spawnEcho("dup");
    const c = await ready(first);
    const second = spawnEcho("dup");
    const [code] = await second.exited;
    expect(code).toBe(75);
    expect(second.output()).toContain('"code":"ALREADY_RUNNING"');
    expect(second.output()).toContain("another instance already serves");
    expect((await c.getStatus()).pid).toBe(first.child.pid);
    expect(existsSync(first.socketPath)).toBe(true);
  });

  it("serves its socket with mode 0600, or 0660 for a socket group", async () => {
    const plain = spawnEcho("mode");
    await ready(plain);
    expect(statSync(plain.socketPath).mode & 0o777).toBe(0o600);
    const grouped = spawnEcho("group", ["--socket-group", "nogroup"]);
    await ready(grouped);
    const st = statSync(grouped.socketPath);
    expect([st.mode & 0o777, st.gid]).toEqual([0o660, 65534]);
  });

  it("reloads on SIGHUP and stops cleanly on SIGTERM, removing its socket", async () => {
    const d = spawnEcho("signals");
    const c = await ready(d);
    const seq = (await c.getStatus()).lastEventSeq;
    d.child.kill("SIGHUP");
    const events = await eventsUntil(c, seq, "daemon.reloaded");
    expect(events.at(-1)?.topic).toBe("daemon.reloaded");
    expect(JSON.parse((await c.getStatus()).detailsJson)).toMatchObject({ reloads: 1 });
    expect(await c.checkHealth()).toBe(HealthCheckResponse_ServingStatus.SERVING);

    d.child.kill("SIGTERM");
    const [code, signal] = await d.exited;
    expect([code, signal]).toEqual([0, null]);
    expect(existsSync(d.socketPath)).toBe(false);
    expect(d.output()).toContain('"msg":"daemon stopped"');
  });

  it("tells systemd it is ready when NOTIFY_SOCKET is set", async () => {
    const notifySocket = join(root, "notify.sock");
    // Node cannot bind a Unix datagram socket; Debian's python3 plays systemd's side.
    const receiver = spawn(
      "/usr/bin/python3",
      [
        "-c",
        "import socket,sys\ns=socket.socket(socket.AF_UNIX,socket.SOCK_DGRAM)\ns.bind(sys.argv[1])\nprint('bound',flush=True)\ns.settimeout(20)\nprint(s.recv(4096).decode(),flush=True)",
        notifySocket,
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    children.push(receiver);
    let received = "";
    receiver.stdout!.on("data", (b: Buffer) => (received += b.toString()));
    const receiverExit = once(receiver, "exit");
    while (!received.includes("bound")) await new Promise((r) => setTimeout(r, 20));

    const d = spawnEcho("notify", [], { NOTIFY_SOCKET: notifySocket });
    await ready(d);
    await receiverExit;
    const lines = received.split("\n");
    expect(lines).toContain("READY=1");
    expect(lines).toContain(`MAINPID=${d.child.pid}`);
    expect(lines).toContain("STATUS=echo@notify running");
  });
});

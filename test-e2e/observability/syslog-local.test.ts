// The syslog sink on a local Unix datagram socket (what /dev/log is), through util-linux logger(1): a socket
// in a temp dir, read by a small Python receiver (Node cannot bind Unix datagram sockets either).
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { Pipeline, EMPTY_SETTINGS } from "@routerd/telemetry";
import { until } from "../lib/serve.js";

// Debian's own python3 first (a version manager's shim on PATH can take seconds to start).
const PYTHON = existsSync("/usr/bin/python3") ? "/usr/bin/python3" : "python3";
const python = spawnSync(PYTHON, ["--version"]).status === 0;
const RECEIVER = `import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind(sys.argv[1])
print("ready", flush=True)
while True:
    print(s.recv(65536).decode("utf-8", "replace"), flush=True)
`;

const dir = mkdtempSync(join(tmpdir(), "routerd-obs-syslog-"));
let receiver: ChildProcess | undefined;
afterAll(() => {
  receiver?.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!python)("syslog sink on a Unix datagram socket", () => {
  it("delivers RFC 3164 local lines with facility, tag and pid, and counts drops when the socket is gone", { timeout: 30_000 }, async () => {
    const path = join(dir, "log.sock");
    const lines: string[] = [];
    receiver = spawn(PYTHON, ["-c", RECEIVER, path], { stdio: ["ignore", "pipe", "inherit"] });
    receiver.stdout!.on("data", (d: Buffer) => lines.push(...d.toString().split("\n").filter(Boolean)));
    await until("the receiver", () => lines.includes("ready") && existsSync(path), 20_000);

    const p = new Pipeline({ daemon: "healthcheck", instance: "default" }, { limits: { queueSize: 10, batchSize: 5, flushIntervalMs: 10, sendTimeoutMs: 2000, backoffMs: 10, maxBackoffMs: 50 } });
    p.configure({ ...EMPTY_SETTINGS, sinks: [{ pipeline: "t", name: "local", type: "syslog", minLevel: "info", labels: {}, syslog: { network: "unixgram", address: path, facility: "local5", tag: "routerd-t" } }] });
    p.event({ seq: 3, time: new Date().toISOString(), topic: "healthcheck.transition", severity: "warning", resource: "self", message: "Healthy -> Failing", attributes: {} });
    const got = await until("the line at the socket", () => lines.find((l) => l.includes("Healthy -> Failing")), 10_000);
    // local5.warning = 21 * 8 + 4.
    expect(got).toMatch(new RegExp(`^<172>[A-Z][a-z]{2} [ 0-9]\\d \\d\\d:\\d\\d:\\d\\d routerd-t\\[${process.pid}\\]: \\[healthcheck/default\\] healthcheck\\.transition self: Healthy -> Failing$`));

    receiver.kill("SIGKILL");
    rmSync(path, { force: true });
    for (let i = 0; i < 30; i++) p.event({ seq: 10 + i, time: new Date().toISOString(), topic: "t", severity: "info", resource: "", message: `m${i}`, attributes: {} });
    const stats = await until("drops counted", () => {
      const s = p.stats()[0]!;
      return s.dropped > 0 ? s : undefined;
    }, 15_000);
    expect(stats.accepted).toBe(31);
    expect(stats.sent + stats.dropped + stats.buffered).toBe(31);
    p.close();
  });
});

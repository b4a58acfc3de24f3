// routerctl against a real daemon process (daemon-kit's echo daemon): status, commands, events, errors.
import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { connectDaemon } from "@routerd/rpc";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO, sh, tempDir } from "../lib/netns.js";
import { ROUTERCTL, until } from "../lib/serve.js";

const tmp = tempDir("routerd-ctl-");
const runDir = join(tmp.dir, "run");
let daemon: ChildProcess;
const ctl = (...args: string[]) => sh(process.execPath, [ROUTERCTL, ...args, "--run-dir", runDir], { allowFail: true });

beforeAll(async () => {
  daemon = spawn(process.execPath, [join(REPO, "packages/daemon-kit/dist/testing/echo-daemon.js"), "--name", "echo", "--instance", "one", "--run-dir", runDir, "--state-dir", join(tmp.dir, "state")], { stdio: "ignore" });
  await until("echo daemon answers", async () => {
    const c = await connectDaemon(join(runDir, "echo", "one.sock"), { connectTimeoutMs: 300 });
    c.close();
    return true;
  });
});
afterAll(async () => {
  daemon.kill("SIGKILL");
  tmp.cleanup();
});

describe("routerctl", () => {
  it("shows a daemon's status as text and JSON", () => {
    const text = ctl("daemon", "echo/one", "status");
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^echo\/one\s+pid \d+/);
    const json = JSON.parse(ctl("daemon", "echo/one", "status", "--json").stdout) as { daemon: string; instance: string; health: string };
    expect(json).toMatchObject({ daemon: "echo", instance: "one", health: "HEALTH_STATUS_SERVING" });
  });

  it("runs a daemon's commands, with arguments, and exits 1 when the daemon refuses", () => {
    expect(JSON.parse(ctl("daemon", "echo/one", "command", "count", "--json").stdout)).toMatchObject({ ok: true, details: { counter: 1 } });
    expect(JSON.parse(ctl("daemon", "echo/one", "command", "echo", "a=1", "b=two", "--json").stdout)).toMatchObject({ ok: true, details: { a: "1", b: "two" } });
    const refused = ctl("daemon", "echo/one", "command", "fail", "message=nope");
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("failed: nope");
    expect(ctl("daemon", "echo/one", "command").code).toBe(1);
    expect(ctl("daemon", "echo/one", "command", "echo", "novalue").code).toBe(1);
  });

  it("lists a daemon's events, filtered by topic", () => {
    const lines = ctl("events", "--daemon", "echo/one", "--topic", "daemon.command", "--json").stdout.trim().split("\n").map((l) => JSON.parse(l) as { topic: string });
    expect(lines.length).toBeGreaterThanOrEqual(3);
    expect(lines.every((e) => e.topic.startsWith("daemon.command"))).toBe(true);
  });

  it("says which socket is missing and what to do", () => {
    const r = ctl("daemon", "echo/two", "status");
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(join(runDir, "echo", "two.sock"));
    expect(r.stderr).toContain("routerd-echo@two");
  });
});

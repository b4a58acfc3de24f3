// Confirm-or-rollback on a real kernel. A management namespace reaches the router over an SSH-like TCP
// service; config B cuts it. Applied with --confirm-within 5s and not confirmed, A must be back (host
// state and the management path) within the deadline + 2 s — also when the applying process or routerd
// serve is killed with SIGKILL while the change is pending.
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { stateSnapshot } from "../lib/netns.js";
import { routerctl, until } from "../lib/serve.js";
import { ManagedRouter, configA, configB } from "./management.js";

const WINDOW = "5s";
const GRACE_MS = 2000;

let m: ManagedRouter;
let stateA: string;
beforeEach(async () => {
  m = new ManagedRouter();
  const a = m.routerd(["apply", "--once", "--config", m.write(configA())]);
  expect(a.code, a.stderr).toBe(0);
  stateA = stateSnapshot(m.router);
  await m.startProbe();
});
afterEach(() => m.destroy());

/** Waits for the revert and checks it came in time and restored A. Returns when the path worked again. */
async function expectRevertedInTime(deadline: number): Promise<number> {
  const back = await m.waitReachable(true, 5000 + GRACE_MS + 10_000, deadline - 1000);
  const restored = await until("A's host state", () => stateSnapshot(m.router) === stateA, 5000, 50);
  expect(restored).toBe(true);
  expect(back - deadline, `management path back ${back - deadline} ms after the deadline`).toBeLessThanOrEqual(GRACE_MS);
  await until("the pending record to be cleared", () => m.pending() === undefined, 5000, 50);
  return back;
}

describe("apply --confirm-within", () => {
  it("restores the previous generation when nobody confirms, and says so", async () => {
    const applied = m.routerd(["apply", "--once", "--config", m.write(configB()), "--confirm-within", WINDOW]);
    expect(applied.code, applied.stderr).toBe(0);
    expect(applied.stdout).toMatch(/Confirm by \S+ \(within 5 s\): `routerd confirm` keeps generation 2; otherwise generation 1 is restored automatically/);
    const deadline = Date.parse(m.pending()!.deadline!);
    await m.waitReachable(false, 5000, Date.now()); // B cut the management path

    // A second apply while one is pending is refused, with what to do.
    const second = m.routerd(["apply", "--once", "--config", m.write(configA())]);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain("refusing to apply: generation 2");
    expect(second.stderr).toContain("routerd confirm");
    m.write(configB()); // the file holds B again, as the operator left it

    await expectRevertedInTime(deadline);
    // The revert is an ordinary reconcile to generation 1, recorded as generation 3 with its reason.
    const g = m.generations();
    expect(g.map((x) => [x.generation, x.confirmation?.state ?? "", x.appliedBy.command])).toEqual([
      [1, "", "routerd apply"],
      [2, "reverted", "routerd apply"],
      [3, "", "routerd confirm-watchdog"],
    ]);
    expect(g[2]!.reason).toMatch(/^revert: generation 2 was not confirmed by /);
    // The config file holds A's text again, so routerd serve and the next boot agree with the host.
    expect(m.routerd(["plan", "--config", m.configPath, "--detailed-exitcode"]).code).toBe(0);
    const late = m.routerd(["confirm"]);
    expect(late.code).toBe(1);
    expect(late.stderr).toContain("generation 2 was reverted");
  });

  it("keeps the change when `routerd confirm` arrives in time", async () => {
    expect(m.routerd(["apply", "--config", m.write(configB()), "--confirm-within", WINDOW]).code).toBe(0);
    const deadline = Date.parse(m.pending()!.deadline!);
    const stateB = stateSnapshot(m.router);
    const confirmed = m.routerd(["confirm"]);
    expect(confirmed.code, confirmed.stderr).toBe(0);
    expect(confirmed.stdout).toContain("Confirmed: generation 2 stays.");
    await new Promise((r) => setTimeout(r, Math.max(0, deadline - Date.now()) + GRACE_MS));
    expect(stateSnapshot(m.router)).toBe(stateB);
    expect(m.reachableSince(deadline)).toBe(false);
    expect(m.generations().map((g) => g.confirmation?.state ?? "")).toEqual(["", "confirmed"]);
  });

  it("reverts at the deadline although the applying process was killed with SIGKILL", async () => {
    const waiting = m.start(["apply", "--config", m.write(configB()), "--confirm-within", WINDOW, "--wait"]);
    const p = await until("the change to be pending with its deadline", () => (m.pending()?.deadline ? m.pending() : undefined), 20_000, 50);
    expect(waiting.exitCode).toBeNull(); // --wait: still in the foreground
    waiting.kill("SIGKILL");
    await expectRevertedInTime(Date.parse(p.deadline!));
  });

  it("reverts at the deadline although routerd serve was killed with SIGKILL", async () => {
    const serve = m.start(["serve", "--config", m.configPath, "--interval", "2s"]);
    await until("serve to answer", () => routerctl(m.router, ["status"], m.runDir).code === 0, 20_000, 100);
    // The tried config is a separate file: serve follows its own file and holds while B is pending.
    // A longer window: routerctl is asked twice before serve is killed, on a machine that may be busy.
    expect(m.routerd(["apply", "--config", m.write(configB(), `${m.configPath}.new`), "--confirm-within", "12s"]).code).toBe(0);
    const deadline = Date.parse(m.pending()!.deadline!);
    const shown = await until("routerctl status to show the pending deadline", () => {
      const s = routerctl(m.router, ["status"], m.runDir).json as { details?: { pendingConfirmation?: { deadline: string; generation: number } } } | undefined;
      const p = s?.details?.pendingConfirmation;
      return p?.deadline ? p : undefined; // serve may first show the write-ahead record, before apply set the deadline
    }, 5000, 100);
    expect(shown).toMatchObject({ deadline: m.pending()!.deadline, generation: 2 });
    const text = await until("routerctl status as text", () => m.router.exec(process.execPath, [new URL("../../apps/routerctl/bin/routerctl.js", import.meta.url).pathname, "status", "--run-dir", m.runDir], { allowFail: true }).stdout || undefined, 5000, 100);
    expect(text).toMatch(/pending confirmation: generation 2 reverts to generation 1 at \S+ \(in \d+ s\) unless `routerd confirm`/);
    serve.kill("SIGKILL");
    await expectRevertedInTime(deadline);
  });

  it("routerd serve honours the deadline after a crash that took the watchdog with it", async () => {
    const waiting = m.start(["apply", "--config", m.write(configB()), "--confirm-within", WINDOW, "--wait"]);
    const p = await until("the change to be pending with its watchdog", () => (m.pending()?.deadline && m.pending()?.watchdogPid ? m.pending() : undefined), 20_000, 50);
    // The host "crashes": the applying process and the watchdog die; serve comes back (as systemd restarts it).
    waiting.kill("SIGKILL");
    process.kill(p.watchdogPid!, "SIGKILL");
    m.start(["serve", "--config", m.configPath, "--interval", "2s"]);
    await expectRevertedInTime(Date.parse(p.deadline!));
    const reverter = await until("the revert generation", () => m.generations().find((g) => g.reason?.startsWith("revert:")), 5000, 100);
    expect(reverter.appliedBy.command).toBe("routerd serve");
  });
});

import { describe, expect, it } from "vitest";
import { endCause } from "../pppd/exit-status.js";
import { DEFAULT_BACKOFF, redialDelayMs } from "./backoff.js";
import { INITIAL_STATE, step, type Happening, type SessionState } from "./machine.js";

const policy = { ...DEFAULT_BACKOFF, jitter: 0 };
const exited = (code: number, at: number, persist = true): Happening => ({ type: "exited", cause: endCause(code, null), exitCode: code, error: "", at, persist, policy, random: 0.5 });
const up = (at: number): Happening => ({ type: "ip-up", at, link: { local: "10.64.0.100", remote: "10.64.0.1", dnsServers: ["10.64.0.53"] } });

function run(...hs: Happening[]): SessionState {
  return hs.reduce(step, INITIAL_STATE);
}

describe("session machine", () => {
  it("dials, comes up, and redials at once after a session that stayed up", () => {
    const s = run({ type: "redial-requested", at: 0 }, { type: "dialed", pid: 10 }, up(4000), { type: "ip-down" }, exited(16, 60_000));
    expect(s).toMatchObject({ phase: "Down", consecutiveFailures: 0, nextDialAt: 60_000, totalDials: 1, lastEnd: { cause: { reason: "Hangup" }, exitCode: 16 } });
    expect(s.ipv4).toBeUndefined();
  });

  it("backs off exponentially while attempts keep failing", () => {
    let s = run({ type: "redial-requested", at: 0 });
    const waits: number[] = [];
    let t = 0;
    for (let i = 0; i < 8; i++) {
      s = step(s, { type: "dialed", pid: 100 + i });
      t += 5000;
      s = step(s, exited(8, t));
      waits.push(s.nextDialAt! - t);
      t = s.nextDialAt!;
    }
    expect(waits).toEqual([1000, 2000, 4000, 8000, 16_000, 32_000, 64_000, 120_000]);
    expect(s.phase).toBe("Down");
  });

  it("an authentication failure waits at least authMinMs and says AuthFailed", () => {
    const s = run({ type: "redial-requested", at: 0 }, { type: "dialed", pid: 1 }, exited(19, 3000));
    expect(s).toMatchObject({ phase: "AuthFailed", consecutiveFailures: 1, nextDialAt: 3000 + policy.authMinMs });
  });

  it("a session that drops soon after coming up counts as a failure (no tight redial loop)", () => {
    const s = run({ type: "redial-requested", at: 0 }, { type: "dialed", pid: 1 }, up(3000), exited(0, 5000));
    expect(s).toMatchObject({ consecutiveFailures: 1, nextDialAt: 6000 });
  });

  it("without persist it stays down until a redial is asked for", () => {
    const s = run({ type: "redial-requested", at: 0 }, { type: "dialed", pid: 1 }, exited(8, 3000, false));
    expect(s.nextDialAt).toBeUndefined();
    expect(step(s, { type: "redial-requested", at: 9000 })).toMatchObject({ nextDialAt: 9000, consecutiveFailures: 0 });
  });

  it("a redial while pppd runs waits for it to end, then dials at once", () => {
    const s = run({ type: "redial-requested", at: 0 }, { type: "dialed", pid: 1 }, up(2000), { type: "redial-requested", at: 2500 });
    expect(s).toMatchObject({ redialPending: true, phase: "Up" });
    expect(step(s, exited(5, 2600))).toMatchObject({ nextDialAt: 2600, consecutiveFailures: 0, redialPending: false });
  });

  it("a stop ends in Stopped without a next dial", () => {
    const s = run({ type: "redial-requested", at: 0 }, { type: "dialed", pid: 1 }, up(2000), { type: "stop-requested" }, exited(5, 2600));
    expect(s).toMatchObject({ phase: "Stopped", stopping: true });
    expect(s.nextDialAt).toBeUndefined();
  });

  it("IPv6 alone keeps the session up; it is down when both protocols are", () => {
    let s = run({ type: "redial-requested", at: 0 }, { type: "dialed", pid: 1 }, up(1000), { type: "ipv6-up", at: 1100, link: { localLinkLocal: "fe80::2", peerLinkLocal: "fe80::1" } });
    s = step(s, { type: "ip-down" });
    expect(s.phase).toBe("Up");
    s = step(s, { type: "ipv6-down" });
    expect(s.phase).toBe("Down");
    expect(s.connectedAt).toBe(1000);
  });
});

describe("redial delay", () => {
  it("spreads by the jitter and never passes maxMs", () => {
    const cause = endCause(8, null);
    expect(redialDelayMs(1, cause, DEFAULT_BACKOFF, 0)).toBe(900);
    expect(redialDelayMs(1, cause, DEFAULT_BACKOFF, 0.999999)).toBe(1100);
    expect(redialDelayMs(20, cause, DEFAULT_BACKOFF, 0.999999)).toBe(DEFAULT_BACKOFF.maxMs);
  });
});

import { describe, expect, it } from "vitest";
import { parseSessionConfig } from "./config.js";
import { endCause } from "./pppd/exit-status.js";
import { DEFAULT_BACKOFF } from "./session/backoff.js";
import { INITIAL_STATE, step, type Happening, type SessionState } from "./session/machine.js";
import { sessionDetails, sessionEvents, sessionView } from "./status-view.js";

const config = parseSessionConfig({ interface: "wan0", ifname: "ppp0", username: "u", password: "p", authMethod: "both", ipv6: false, usePeerDNS: true, lcpEchoInterval: 10, lcpEchoFailure: 3, persist: true });
const policy = { ...DEFAULT_BACKOFF, jitter: 0 };
const exited = (code: number, at: number): Happening => ({ type: "exited", cause: endCause(code, null), exitCode: code, error: "CHAP authentication failed", at, persist: true, policy, random: 0 });

/** The topics each happening of a sequence emits. */
function topics(...hs: Happening[]): string[][] {
  let s: SessionState = INITIAL_STATE;
  return hs.map((h) => {
    const next = step(s, h);
    const out = sessionEvents(s, next, h, "ppp0").map((e) => e.topic);
    s = next;
    return out;
  });
}

describe("session events", () => {
  it("dialing, up, down (at ip-down, not again at exit)", () => {
    expect(
      topics({ type: "redial-requested", at: 0 }, { type: "dialed", pid: 5 }, { type: "ip-up", at: 1, link: { local: "a", remote: "b", dnsServers: [] } }, { type: "ip-down" }, exited(16, 30_000)),
    ).toEqual([[], ["pppoe.session.dialing"], ["pppoe.session.up"], ["pppoe.session.down"], []]);
  });

  it("an authentication failure is auth-failed, a failed dial is dial-failed", () => {
    expect(topics({ type: "redial-requested", at: 0 }, { type: "dialed", pid: 5 }, exited(19, 3000), { type: "dialed", pid: 6 }, exited(8, 20_000))).toEqual([
      [],
      ["pppoe.session.dialing"],
      ["pppoe.session.auth-failed"],
      ["pppoe.session.dialing"],
      ["pppoe.session.dial-failed"],
    ]);
  });
});

describe("status details", () => {
  it("carry the original API's status fields while up", () => {
    const s = [{ type: "redial-requested", at: 0 }, { type: "dialed", pid: 5 }, { type: "ip-up", at: Date.parse("2026-01-01T00:00:00Z"), link: { local: "10.64.0.100", remote: "10.64.0.1", dnsServers: ["192.0.2.53"] } }].reduce(
      (acc, h) => step(acc, h as Happening),
      INITIAL_STATE,
    );
    expect(sessionDetails(sessionView("wan", config, s))).toEqual({
      interface: "wan0",
      device: "ppp0",
      currentAddress: "10.64.0.100",
      peerAddress: "10.64.0.1",
      gateway: "10.64.0.1",
      dnsServers: ["192.0.2.53"],
      connectedAt: "2026-01-01T00:00:00.000Z",
      pppdPid: 5,
      consecutiveFailures: 0,
      totalDials: 1,
    });
  });

  it("say when the next dial is after an authentication failure", () => {
    const s = [{ type: "redial-requested", at: 0 }, { type: "dialed", pid: 5 }, exited(19, 1000)].reduce((acc, h) => step(acc, h as Happening), INITIAL_STATE);
    const v = sessionView("wan", config, s);
    expect(v).toMatchObject({ phase: "AuthFailed", lastEndReason: "AuthFailed", lastExitCode: 19, nextDialAt: new Date(1000 + policy.authMinMs) });
    expect(v.lastError).toMatch(/username or password\nCHAP authentication failed/);
  });
});

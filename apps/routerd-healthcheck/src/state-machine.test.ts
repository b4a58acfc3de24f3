import { describe, expect, it } from "vitest";
import {
  PROBE_STATES,
  initialMachine,
  isConsistent,
  isUsable,
  resetMachine,
  stepMachine,
  type Machine,
  type ProbeState,
  type Thresholds,
} from "./state-machine.js";

const T0 = Date.parse("2025-01-01T00:00:00Z");
const at = (i: number): Date => new Date(T0 + i * 1000);

/** Runs "+" (success) / "-" (failure) results and returns the state after each and the transitions. */
function run(results: string, t: Thresholds, start: Machine = initialMachine(at(0))): { states: ProbeState[]; transitions: string[]; last: Machine } {
  let m = start;
  const states: ProbeState[] = [];
  const transitions: string[] = [];
  [...results].forEach((r, i) => {
    const step = stepMachine(m, r === "+", r === "+" ? "Succeeded" : "Timeout", t, at(i + 1));
    m = step.machine;
    // Every reachable (state, verdict) pair is one a restart may restore.
    expect(isConsistent(m.state, m.verdict)).toBe(true);
    states.push(m.state);
    if (step.transition) transitions.push(`${step.transition.from}>${step.transition.to}`);
  });
  return { states, transitions, last: m };
}

const H2U3 = { healthyThreshold: 2, unhealthyThreshold: 3 };
const H1U1 = { healthyThreshold: 1, unhealthyThreshold: 1 };

describe("stepMachine", () => {
  const cases: { name: string; t: Thresholds; results: string; states: ProbeState[]; transitions: string[] }[] = [
    { name: "comes up after healthyThreshold successes", t: H2U3, results: "++", states: ["Passing", "Healthy"], transitions: ["Unknown>Passing", "Passing>Healthy"] },
    {
      name: "goes down through Failing after unhealthyThreshold failures",
      t: H2U3,
      results: "++---",
      states: ["Passing", "Healthy", "Failing", "Failing", "Unhealthy"],
      transitions: ["Unknown>Passing", "Passing>Healthy", "Healthy>Failing", "Failing>Unhealthy"],
    },
    {
      name: "recovers through Passing",
      t: H2U3,
      results: "++---++",
      states: ["Passing", "Healthy", "Failing", "Failing", "Unhealthy", "Passing", "Healthy"],
      transitions: ["Unknown>Passing", "Passing>Healthy", "Healthy>Failing", "Failing>Unhealthy", "Unhealthy>Passing", "Passing>Healthy"],
    },
    {
      name: "a blip on a healthy probe returns straight to Healthy (the verdict never changed)",
      t: H2U3,
      results: "++-+",
      states: ["Passing", "Healthy", "Failing", "Healthy"],
      transitions: ["Unknown>Passing", "Passing>Healthy", "Healthy>Failing", "Failing>Healthy"],
    },
    {
      name: "a blip on an unhealthy probe returns straight to Unhealthy",
      t: H2U3,
      results: "---+-",
      states: ["Unknown", "Unknown", "Unhealthy", "Passing", "Unhealthy"],
      transitions: ["Unknown>Unhealthy", "Unhealthy>Passing", "Passing>Unhealthy"],
    },
    {
      name: "a fresh probe with a dead target never passes through a usable state",
      t: H2U3,
      results: "---",
      states: ["Unknown", "Unknown", "Unhealthy"],
      transitions: ["Unknown>Unhealthy"],
    },
    {
      name: "a fresh probe that succeeds once then fails has no verdict yet",
      t: H2U3,
      results: "+-",
      states: ["Passing", "Unknown"],
      transitions: ["Unknown>Passing", "Passing>Unknown"],
    },
    { name: "thresholds of 1 flip on every result", t: H1U1, results: "+-+", states: ["Healthy", "Unhealthy", "Healthy"], transitions: ["Unknown>Healthy", "Healthy>Unhealthy", "Unhealthy>Healthy"] },
    {
      name: "alternating results never reach a threshold of 3",
      t: { healthyThreshold: 3, unhealthyThreshold: 3 },
      results: "+-+-+-",
      states: ["Passing", "Unknown", "Passing", "Unknown", "Passing", "Unknown"],
      transitions: ["Unknown>Passing", "Passing>Unknown", "Unknown>Passing", "Passing>Unknown", "Unknown>Passing", "Passing>Unknown"],
    },
    {
      name: "staying Healthy or Unhealthy emits nothing",
      t: H1U1,
      results: "+++---",
      states: ["Healthy", "Healthy", "Healthy", "Unhealthy", "Unhealthy", "Unhealthy"],
      transitions: ["Unknown>Healthy", "Healthy>Unhealthy"],
    },
  ];

  for (const c of cases) {
    it(c.name, () => {
      const r = run(c.results, c.t);
      expect(r.states).toEqual(c.states);
      expect(r.transitions).toEqual(c.transitions);
    });
  }

  it("counts streaks and resets the other one", () => {
    const r = run("++--", H2U3);
    expect(r.last).toMatchObject({ state: "Failing", verdict: "up", consecutiveSuccesses: 0, consecutiveFailures: 2 });
  });

  it("records the time and reason of the transition, and keeps them while the state holds", () => {
    let m = initialMachine(at(0));
    m = stepMachine(m, false, "ConnectionRefused", H1U1, at(5)).machine;
    expect(m).toMatchObject({ state: "Unhealthy", since: at(5).toISOString(), reason: "ConnectionRefused" });
    const held = stepMachine(m, false, "Timeout", H1U1, at(6));
    expect(held.transition).toBeUndefined();
    expect(held.machine).toMatchObject({ since: at(5).toISOString(), reason: "ConnectionRefused", consecutiveFailures: 2 });
  });

  it("takes lowered thresholds into account on the next result", () => {
    const passing = run("++", { healthyThreshold: 3, unhealthyThreshold: 3 }).last;
    expect(passing.state).toBe("Passing");
    expect(stepMachine(passing, true, "Succeeded", H2U3, at(9)).machine.state).toBe("Healthy");
  });
});

describe("resetMachine", () => {
  it("goes back to Unknown with a transition", () => {
    const healthy = run("+", H1U1).last;
    const r = resetMachine(healthy, "ConfigChanged", at(10));
    expect(r.machine).toMatchObject({ state: "Unknown", verdict: "unknown", consecutiveSuccesses: 0, reason: "ConfigChanged" });
    expect(r.transition).toEqual({ from: "Healthy", to: "Unknown", reason: "ConfigChanged", at: at(10).toISOString() });
  });

  it("emits nothing when already Unknown", () => {
    expect(resetMachine(initialMachine(at(0)), "ConfigChanged", at(3)).transition).toBeUndefined();
  });
});

describe("isUsable / isConsistent", () => {
  it("only Healthy and Failing may carry traffic", () => {
    expect(PROBE_STATES.filter(isUsable)).toEqual(["Healthy", "Failing"]);
  });

  it("pairs states with the verdicts they can have", () => {
    expect(isConsistent("Failing", "up")).toBe(true);
    expect(isConsistent("Failing", "down")).toBe(false);
    expect(isConsistent("Passing", "down")).toBe(true);
    expect(isConsistent("Healthy", "unknown")).toBe(false);
  });
});

import { describe, expect, it } from "vitest";
import type { ProbeConfig } from "./config.js";
import { decodePersisted, encodePersisted, probeFingerprint, type PersistedProbe } from "./persist.js";
import { initialMachine, type Machine } from "./state-machine.js";

const probe: ProbeConfig = { name: "a", type: "http", target: "192.0.2.1", intervalMs: 1000, timeoutMs: 500, healthyThreshold: 2, unhealthyThreshold: 3 };
const healthy: Machine = { state: "Healthy", verdict: "up", consecutiveSuccesses: 2, consecutiveFailures: 0, since: "2025-01-01T00:00:00.000Z", reason: "Succeeded" };

describe("probeFingerprint", () => {
  it("ignores timing and thresholds", () => {
    expect(probeFingerprint({ ...probe, intervalMs: 5000, timeoutMs: 100, healthyThreshold: 9, unhealthyThreshold: 1 })).toBe(probeFingerprint(probe));
  });

  it("changes with anything that changes what is probed", () => {
    const variants: Partial<ProbeConfig>[] = [
      { target: "192.0.2.2" },
      { port: 8080 },
      { path: "/x" },
      { expectStatus: [204] },
      { type: "https" },
      { sourceAddress: "192.0.2.9" },
      { interface: "wan0" },
      { fwmark: 1 },
    ];
    const prints = variants.map((v) => probeFingerprint({ ...probe, ...v }));
    expect(new Set([probeFingerprint(probe), ...prints]).size).toBe(variants.length + 1);
  });

  it("treats the default port and the same port spelled out alike", () => {
    expect(probeFingerprint({ ...probe, port: 80 })).toBe(probeFingerprint(probe));
  });
});

describe("encodePersisted / decodePersisted", () => {
  it("round-trips", () => {
    const map = new Map<string, PersistedProbe>([
      ["b", { fingerprint: "fb", machine: healthy }],
      ["a", { fingerprint: "fa", machine: initialMachine(new Date(0)) }],
    ]);
    const decoded = decodePersisted(JSON.parse(JSON.stringify(encodePersisted(map))));
    expect([...decoded.keys()]).toEqual(["a", "b"]);
    expect(decoded.get("b")).toEqual({ fingerprint: "fb", machine: healthy });
  });

  it("skips what it cannot trust and keeps the rest", () => {
    const data = {
      version: 1,
      probes: {
        good: { fingerprint: "f", machine: healthy },
        noPrint: { machine: healthy },
        badState: { fingerprint: "f", machine: { ...healthy, state: "Great" } },
        inconsistent: { fingerprint: "f", machine: { ...healthy, verdict: "down" } },
        negative: { fingerprint: "f", machine: { ...healthy, consecutiveFailures: -1 } },
        badTime: { fingerprint: "f", machine: { ...healthy, since: "yesterday" } },
      },
    };
    expect([...decodePersisted(data).keys()]).toEqual(["good"]);
  });

  it("returns nothing for missing, foreign or future data", () => {
    expect(decodePersisted(null).size).toBe(0);
    expect(decodePersisted({ counter: 3 }).size).toBe(0);
    expect(decodePersisted({ version: 2, probes: { a: { fingerprint: "f", machine: healthy } } }).size).toBe(0);
  });
});

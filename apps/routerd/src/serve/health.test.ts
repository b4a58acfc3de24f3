// serve acts on the last probe states it read while routerd-healthcheck misses an answer, for a while.
import { describe, expect, it } from "vitest";
import { HEALTH_MEMORY_MS, ProbeStateMemory } from "./health.js";

describe("ProbeStateMemory", () => {
  it("keeps the last states through a missed answer, then forgets them", () => {
    const memory = new ProbeStateMemory();
    expect(memory.use(undefined, 0)).toEqual(new Map()); // nothing read yet: every probe Unknown
    const read = new Map([["ingress.web.web2", "Unhealthy" as const]]);
    expect(memory.use(read, 1_000)).toBe(read);
    // A busy daemon misses one answer: web2 stays down instead of taking connections again.
    expect(memory.use(undefined, 2_000).get("ingress.web.web2")).toBe("Unhealthy");
    expect(memory.use(undefined, 1_000 + HEALTH_MEMORY_MS).get("ingress.web.web2")).toBe("Unhealthy");
    // Silent for longer: the daemon is gone, and blindness is not a verdict.
    expect(memory.use(undefined, 1_001 + HEALTH_MEMORY_MS)).toEqual(new Map());
    // A fresh answer replaces everything.
    const fresh = new Map([["ingress.web.web2", "Healthy" as const]]);
    expect(memory.use(fresh, 40_000)).toBe(fresh);
  });
});

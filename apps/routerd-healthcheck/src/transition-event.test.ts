import type { Event } from "@routerd/rpc";
import { describe, expect, it } from "vitest";
import { TRANSITION_TOPIC, transitionEvent, transitionFromEvent } from "./transition-event.js";

const at = "2025-01-01T00:00:05.000Z";

/** What the kit does with an EventInput on its way to the wire: attributes become strings. */
function onTheWire(seq: number, input: ReturnType<typeof transitionEvent>): Event {
  const attributes = Object.fromEntries(Object.entries(input.attributes ?? {}).map(([k, v]) => [k, String(v)]));
  return { seq, time: new Date(at), topic: input.topic, severity: 3, resource: input.resource ?? "", message: input.message, attributes };
}

describe("transition events", () => {
  it("round-trip from the daemon's event to a client's ProbeTransition", () => {
    const input = transitionEvent("isp1", { from: "Healthy", to: "Failing", reason: "Timeout", at }, { error: "no answer within 500 ms", attributes: { type: "icmp" } });
    expect(input).toMatchObject({ topic: TRANSITION_TOPIC, resource: "isp1", severity: "warning", message: "Healthy -> Failing: Timeout (no answer within 500 ms)" });
    expect(transitionFromEvent(onTheWire(42, input))).toEqual({
      seq: 42,
      time: new Date(at),
      probe: "isp1",
      from: "Healthy",
      to: "Failing",
      reason: "Timeout",
      usable: true,
      error: "no answer within 500 ms",
    });
  });

  it("marks recoveries as info and unusable states as such", () => {
    const input = transitionEvent("isp1", { from: "Unhealthy", to: "Passing", reason: "Succeeded", at });
    expect(input.severity).toBe("info");
    expect(transitionFromEvent(onTheWire(1, input))).toMatchObject({ usable: false, error: "" });
  });

  it("ignores other topics and malformed transitions", () => {
    const good = onTheWire(1, transitionEvent("a", { from: "Unknown", to: "Passing", reason: "Succeeded", at }));
    expect(transitionFromEvent({ ...good, topic: "status.condition" })).toBeUndefined();
    expect(transitionFromEvent({ ...good, attributes: { ...good.attributes, to: "Sideways" } })).toBeUndefined();
    expect(transitionFromEvent({ ...good, resource: "" })).toBeUndefined();
  });
});

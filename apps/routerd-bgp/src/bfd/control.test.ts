// bfdd's control-socket framing: requests as bfdd reads them, notifications split from a byte stream
// however it arrives.
import { describe, expect, it } from "vitest";
import { decodeFrames, encodeFrame, parseNotification, subscribeFrame } from "./control.js";

const notify = (json: object) => encodeFrame(4, 0, Buffer.from(JSON.stringify(json)));

describe("bfdd control frames", () => {
  it("the subscription is a type-4 frame of an 8-byte flag set asking for peer states", () => {
    const f = subscribeFrame(7);
    expect(f.readUInt32BE(0)).toBe(8);
    expect(f.readUInt16BE(4)).toBe(7);
    expect([f.readUInt8(6), f.readUInt8(7)]).toEqual([4, 1]);
    expect(f.subarray(8).readBigUInt64LE()).toBe(1n);
  });

  it("splits frames across arbitrary chunk boundaries", () => {
    const a = notify({ op: "status", "peer-address": "10.0.0.2", "local-address": "10.0.0.1", state: "up" });
    const b = notify({ op: "status", "peer-address": "10.0.0.2", "local-address": "10.0.0.1", state: "down" });
    const stream = Buffer.concat([a, b]);
    const cut = a.length + 5;
    const first = decodeFrames(stream.subarray(0, cut));
    expect(first.frames.map((f) => parseNotification(f.json)?.state)).toEqual(["up"]);
    const second = decodeFrames(Buffer.concat([first.rest, stream.subarray(cut)]));
    expect(second.frames.map((f) => parseNotification(f.json))).toEqual([{ peer: "10.0.0.2", local: "10.0.0.1", state: "down" }]);
    expect(second.rest.length).toBe(0);
  });

  it("ignores what is not a session state", () => {
    expect(parseNotification({ status: "ok" })).toBeUndefined();
    expect(parseNotification({ op: "status", "peer-address": "10.0.0.2", state: "sideways" })).toBeUndefined();
  });
});

import { describe, expect, it } from "vitest";
import { BOOTREPLY, FLAG_BROADCAST, MIN_MESSAGE_SIZE, checkReply, decodeMessage, encodeMessage } from "./codec.js";
import { buildDiscover } from "./client-messages.js";
import { MessageType, Opt, readAddress, readU32, readU8 } from "./options.js";
import { MAC, replyBytes } from "./test-support/replies.js";

const identity = {
  mac: MAC,
  clientId: Uint8Array.of(1, ...MAC),
  hostname: "cpe",
  vendorClass: "routerd",
  parameterRequestList: [1, 3, 6, 121],
  maxMessageSize: 1472,
};

describe("message codec", () => {
  it("encodes a DISCOVER with the broadcast flag, padded to the BOOTP minimum, and decodes it back", () => {
    const bytes = encodeMessage(buildDiscover(identity, 0xdeadbeef, 3, "192.0.2.50"));
    expect(bytes.length).toBe(MIN_MESSAGE_SIZE);
    const d = decodeMessage(bytes);
    if (!d.ok) throw new Error(d.error);
    const m = d.message;
    expect(m.op).toBe(1);
    expect(m.xid).toBe(0xdeadbeef);
    expect(m.secs).toBe(3);
    expect(m.flags & FLAG_BROADCAST).toBe(FLAG_BROADCAST);
    expect([...m.chaddr]).toEqual([...MAC]);
    expect(readU8(m.options, Opt.MessageType)).toBe(MessageType.Discover);
    expect(readAddress(m.options, Opt.RequestedAddress)).toBe("192.0.2.50");
    expect(Buffer.from(m.options.get(Opt.HostName) ?? []).toString()).toBe("cpe");
    expect(Buffer.from(m.options.get(Opt.VendorClass) ?? []).toString()).toBe("routerd");
    expect([...(m.options.get(Opt.ParameterRequestList) ?? [])]).toEqual([1, 3, 6, 121]);
    expect([...(m.options.get(Opt.ClientId) ?? [])]).toEqual([1, ...MAC]);
    expect(m.options.has(Opt.ServerId)).toBe(false);
  });

  it("reads options moved into file and sname by option overload (52), in RFC 3396 order", () => {
    const bytes = replyBytes({ type: MessageType.Ack, xid: 7, yiaddr: "192.0.2.10" });
    // Put option 52 = 3 in the options field, the lease time in `file`, DNS in `sname`.
    const opts = bytes.subarray(240);
    const end = opts.indexOf(255);
    const withOverload = Buffer.concat([bytes.subarray(0, 240 + end), Buffer.from([52, 1, 3, 255])]);
    withOverload.set([51, 4, 0, 0, 0x0e, 0x10, 255], 108);
    withOverload.set([6, 4, 192, 0, 2, 53, 255], 44);
    const d = decodeMessage(withOverload);
    if (!d.ok) throw new Error(d.error);
    expect(readU32(d.message.options, Opt.LeaseTime)).toBe(3600);
    expect(readAddress(d.message.options, Opt.DnsServers)).toBe("192.0.2.53");
    expect(d.message.file).toBe("");
    expect(d.message.sname).toBe("");
    expect(d.message.options.has(Opt.Overload)).toBe(false);
  });

  it("refuses an invalid overload value and an overflowing overloaded field", () => {
    const bytes = replyBytes({ type: MessageType.Ack, xid: 7, yiaddr: "192.0.2.10" });
    const end = bytes.subarray(240).indexOf(255);
    const bad = Buffer.concat([bytes.subarray(0, 240 + end), Buffer.from([52, 1, 4, 255])]);
    expect(decodeMessage(bad)).toEqual({ ok: false, error: "invalid option overload (52)" });
    const overflow = Buffer.concat([bytes.subarray(0, 240 + end), Buffer.from([52, 1, 2, 255])]);
    overflow.set([6, 200], 44);
    const d = decodeMessage(overflow);
    expect(d.ok).toBe(false);
  });

  it("rejects short messages, wrong magic cookies and oversized hardware addresses", () => {
    const good = replyBytes({ type: MessageType.Offer, xid: 1, yiaddr: "192.0.2.10" });
    expect(decodeMessage(good.subarray(0, 239)).ok).toBe(false);
    const cookie = Buffer.from(good);
    cookie[236] = 0x64;
    expect(decodeMessage(cookie)).toEqual({ ok: false, error: "bad magic cookie" });
    const hlen = Buffer.from(good);
    hlen[2] = 17;
    expect(decodeMessage(hlen).ok).toBe(false);
  });
});

describe("reply check", () => {
  const offer = (over: { xid?: number; mac?: Uint8Array }): ReturnType<typeof decodeMessage> =>
    decodeMessage(replyBytes({ type: MessageType.Offer, xid: over.xid ?? 42, mac: over.mac ?? MAC, yiaddr: "192.0.2.10" }));

  it("accepts our xid and hardware address", () => {
    const d = offer({});
    if (!d.ok) throw new Error(d.error);
    expect(checkReply(d.message, 42, MAC)).toEqual({ ok: true, type: MessageType.Offer });
  });

  it("refuses another xid, another hardware address and requests", () => {
    const wrongXid = offer({ xid: 43 });
    const wrongMac = offer({ mac: Uint8Array.of(2, 0, 0, 0, 0, 1) });
    if (!wrongXid.ok || !wrongMac.ok) throw new Error("decode");
    expect(checkReply(wrongXid.message, 42, MAC)).toEqual({ ok: false, reason: "xid mismatch" });
    expect(checkReply(wrongMac.message, 42, MAC)).toEqual({ ok: false, reason: "chaddr mismatch" });
    const req = decodeMessage(encodeMessage(buildDiscover(identity, 42, 0)));
    if (!req.ok) throw new Error(req.error);
    expect(checkReply(req.message, 42, MAC)).toEqual({ ok: false, reason: "not a BOOTREPLY" });
  });

  it("refuses a reply without a message type (plain BOOTP)", () => {
    const d = decodeMessage(encodeMessage({ op: BOOTREPLY, xid: 42, chaddr: MAC, options: [] }));
    if (!d.ok) throw new Error(d.error);
    expect(checkReply(d.message, 42, MAC)).toEqual({ ok: false, reason: "no DHCP message type" });
  });
});

import { describe, expect, it } from "vitest";
import { decodeMessage, encodeMessage, type Dhcp6Message } from "./codec.js";
import { MessageType, StatusCode } from "./constants.js";
import { findOption } from "./options.js";
import { formatIpv6, fromHex, maskPrefix, parseIpv6, toHex } from "./wire.js";

// A Solicit laid out by hand from RFC 8415 §8, §21.2, §21.9, §21.21, §21.22.
const SOLICIT_HEX = [
  "01123456", // msg-type 1, transaction-id 0x123456
  "0001000a" + "00030001020000000001", // Client Identifier, DUID-LL
  "00080002" + "0000", // Elapsed Time 0
  "00190029" + "00000001" + "00000000" + "00000000", // IA_PD IAID 1, T1 0, T2 0, 41 bytes
  "001a0019" + "00000000" + "00000000" + "38" + "20010db8100000000000000000000000", // IAPREFIX /56
].join("");

function hex(h: string): Uint8Array {
  return fromHex(h)!;
}

describe("codec", () => {
  it("decodes a hand-built Solicit and encodes it back byte for byte", () => {
    const r = decodeMessage(hex(SOLICIT_HEX));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.message.type).toBe(MessageType.SOLICIT);
    expect(r.message.xid).toBe(0x123456);
    expect(r.message.options).toEqual([
      { kind: "client-id", duid: hex("00030001020000000001") },
      { kind: "elapsed-time", centiseconds: 0 },
      {
        kind: "ia-pd",
        iaid: 1,
        t1: 0,
        t2: 0,
        options: [{ kind: "ia-prefix", preferred: 0, valid: 0, prefixLength: 56, prefix: "2001:db8:1000::", options: [] }],
      },
    ]);
    expect(toHex(encodeMessage(r.message))).toBe(SOLICIT_HEX);
  });

  it("round-trips a Reply with status, information options and unknown options", () => {
    const m: Dhcp6Message = {
      type: MessageType.REPLY,
      xid: 0xabcdef,
      options: [
        { kind: "server-id", duid: hex("000100013a0b0c0d0e0f10111213") },
        { kind: "status-code", status: StatusCode.Success, message: "All good ✓" },
        { kind: "dns-servers", addresses: ["2001:db8::53", "2001:db8::1:53"] },
        { kind: "domain-list", names: ["example.net", "corp.example.org"] },
        { kind: "aftr-name", name: "aftr.example.net" },
        { kind: "sntp-servers", addresses: ["2001:db8::123"] },
        { kind: "information-refresh-time", seconds: 3600 },
        { kind: "sol-max-rt", seconds: 120 },
        { kind: "inf-max-rt", seconds: 7200 },
        { kind: "preference", value: 7 },
        { kind: "rapid-commit" },
        { kind: "oro", codes: [23, 24] },
        { kind: "ia-na", iaid: 9, t1: 10, t2: 20, options: [{ kind: "ia-addr", address: "2001:db8:1::100", preferred: 30, valid: 60, options: [] }] },
        { kind: "unknown", code: 67, data: Uint8Array.from([1, 2, 3]) },
      ],
    };
    const r = decodeMessage(encodeMessage(m));
    expect(r).toEqual({ ok: true, message: m });
  });

  it("reads domain names in DNS wire format", () => {
    const wire = "076578616d706c65036e657400" + "04636f7270076578616d706c65036f726700";
    const r = decodeMessage(hex("07000001" + "0018" + (wire.length / 2).toString(16).padStart(4, "0") + wire));
    expect(r.ok && findOption(r.message.options, "domain-list")?.names).toEqual(["example.net", "corp.example.org"]);
  });

  const rejected: Array<[string, string, RegExp]> = [
    ["empty", "", /shorter than the 4-byte header/],
    ["short header", "0712", /shorter than the 4-byte header/],
    ["truncated option header", "07000001" + "00", /truncated option code/],
    ["option length past the end", "07000001" + "0001" + "0010" + "0003", /overruns/],
    ["IA_PD shorter than its fixed part", "07000001" + "00190004" + "00000001", /truncated ia-pd T1/],
    ["nested IAPREFIX overruns its IA_PD", "07000001" + "00190014" + "00000001" + "00000000" + "00000000" + "001a00ff" + "00000000", /overruns/],
    ["prefix length above 128", "07000001" + "001a0019" + "00000000" + "00000000" + "81" + "00".repeat(16), /prefix length 129/],
    ["relay message", "0c000000", /not a client\/server message/],
    ["bad client id length", "07000001" + "00010001" + "00", /DUID length/],
  ];
  it.each(rejected)("rejects %s", (_name, h, pattern) => {
    const r = decodeMessage(hex(h === "" ? "" : h) ?? new Uint8Array());
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toMatch(pattern);
  });

  it("keeps the message but marks a bad informational option as malformed", () => {
    const compressed = "c00c"; // a compression pointer is not allowed in DHCPv6 names
    const r = decodeMessage(hex("07000001" + "00180002" + compressed + "00170003" + "010203" + "00060001" + "00"));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.message.options.map((o) => o.kind)).toEqual(["malformed", "malformed", "malformed"]);
    const reasons = r.message.options.map((o) => (o.kind === "malformed" ? o.reason : ""));
    expect(reasons[0]).toMatch(/label length 192/);
    expect(reasons[1]).toMatch(/multiple of 16/);
    expect(reasons[2]).toMatch(/ORO length is odd/);
  });

  it("refuses search domains that could inject text into configs", () => {
    const evil = Buffer.from("\x0bexample.net\x00", "latin1").toString("hex");
    const r = decodeMessage(hex("07000001" + "0018" + (evil.length / 2).toString(16).padStart(4, "0") + evil));
    expect(r.ok && r.message.options[0]?.kind).toBe("malformed");
  });
});

describe("IPv6 text", () => {
  const cases: Array<[string, string]> = [
    ["2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1"],
    ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
    ["2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1"],
    ["::", "::"],
    ["::ffff:192.0.2.1", "::ffff:c000:201"],
    ["fe80::1%eth0", "fe80::1"],
    ["FE80::A:B", "fe80::a:b"],
  ];
  it.each(cases)("%s → %s (RFC 5952)", (input, out) => {
    expect(formatIpv6(parseIpv6(input)!)).toBe(out);
  });

  it.each(["", ":::", "1:2:3:4:5:6:7:8:9", "2001:db8::1::2", "12345::", "g::1", "1:2:3:4:5:6:7"])("rejects %j", (bad) => {
    expect(parseIpv6(bad)).toBeUndefined();
  });

  it("masks host bits of a prefix", () => {
    expect(formatIpv6(maskPrefix(parseIpv6("2001:db8:1234:5678::1")!, 52))).toBe("2001:db8:1234:5000::");
  });
});

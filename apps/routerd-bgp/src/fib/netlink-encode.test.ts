import { describe, expect, it } from "vitest";
import { NLM_F_ACK, RouteMessages, writeAddress } from "./netlink-encode.js";

// What iproute2 6.1 sent for these lines (`strace -e trace=sendmsg -e write=all ip -force -batch FILE`, in
// a scratch namespace with the next hops on-link). ip asks for an acknowledgement of every message and
// numbers them; the encoder leaves both to the addon, so the test adds them before comparing.
const CAPTURED: [line: string, hex: string][] = [
  [
    "route replace 10.0.0.0/24 proto 219 metric 20 table 254 via 10.99.0.2",
    "34000000180005058431106b0000000002180000fedb000100000000080001000a0000000800060014000000080005000a630002",
  ],
  [
    "route replace 2001:db8::/32 proto 219 metric 20 table 1000 nexthop via fd99::2 nexthop via fd99::3",
    "7c000000180005058531106b000000000a20000000db0001000000001400010020010db8000000000000000000000000080006001400000008000f00e80300003c0009001c0000000000000014000500fd9900000000000000000000000000021c0000000000000014000500fd990000000000000000000000000003",
  ],
  [
    "route replace 2001:db8:1::/48 proto 219 metric 20 table 254 via fd99::2",
    "4c000000180005058631106b000000000a300000fedb0001000000001400010020010db8000100000000000000000000080006001400000014000500fd990000000000000000000000000002",
  ],
  [
    "route replace 0.0.0.0/0 proto 219 metric 7 table 300 nexthop via 10.99.0.2 nexthop via 10.99.0.3",
    "58000000180005058731106b000000000200000000db0001000000000800010000000000080006000700000008000f002c010000240009001000000000000000080005000a6300021000000000000000080005000a630003",
  ],
  [
    "route replace 192.0.2.7/32 proto 219 metric 20 table 100 via 10.99.0.2",
    "34000000180005058831106b000000000220000064db00010000000008000100c00002070800060014000000080005000a630002",
  ],
  ["route del 10.0.0.0/24 proto 219 metric 20 table 254", "2c000000190005008931106b0000000002180000fedbff0000000000080001000a0000000800060014000000"],
  [
    "route del 2001:db8::/32 proto 219 metric 20 table 1000",
    "40000000190005008a31106b000000000a20000000db0000000000001400010020010db8000000000000000000000000080006001400000008000f00e8030000",
  ],
];

/** A line (the form lines.ts writes) through the encoder. */
function encodeLine(m: RouteMessages, line: string): void {
  const w = line.split(" ");
  const t = { protocol: Number(w[w.indexOf("proto") + 1]), metric: Number(w[w.indexOf("metric") + 1]), table: Number(w[w.indexOf("table") + 1]) };
  if (w[1] === "del") return m.delete(w[2]!, t);
  const hops = w.flatMap((x, i) => (x === "via" ? [w[i + 1]!] : []));
  m.replace(w[2]!, hops.join(","), t);
}

function split(buf: Buffer): Buffer[] {
  const out: Buffer[] = [];
  for (let off = 0; off < buf.length; off += buf.readUInt32LE(off)) out.push(buf.subarray(off, off + buf.readUInt32LE(off)));
  return out;
}

describe("rtnetlink route messages", () => {
  it("are byte for byte what ip sends for the same lines (IPv4, IPv6, ECMP, tables above 255, deletes)", () => {
    const m = new RouteMessages(64); // small: growing the buffer is part of the test
    (m as unknown as { buf: Buffer }).buf.fill(0xa5); // no byte left unwritten
    for (const [line] of CAPTURED) encodeLine(m, line);
    const msgs = split(Buffer.from(m.bytes()));
    expect(m.count).toBe(CAPTURED.length);
    msgs.forEach((msg, i) => {
      const ip = Buffer.from(CAPTURED[i]![1], "hex");
      expect(msg.readUInt16LE(6) & NLM_F_ACK).toBe(0);
      msg.writeUInt16LE(msg.readUInt16LE(6) | NLM_F_ACK, 6);
      msg.writeUInt32LE(ip.readUInt32LE(8), 8); // ip's sequence number
      expect(msg.toString("hex"), CAPTURED[i]![0]).toBe(ip.toString("hex"));
    });
  });

  it("refuses what ip refuses, leaving nothing half-written; a no-op keeps the message count", () => {
    const m = new RouteMessages();
    const t = { protocol: 219, table: 254, metric: 20 };
    m.replace("10.0.0.0/24", "192.0.2.1", t);
    const before = m.bytes().length;
    expect(() => m.replace("10.1.0.0/24", "fd00::1", t)).toThrow('inet address is expected rather than "fd00::1"');
    expect(() => m.replace("10.1.0.0/33", "192.0.2.1", t)).toThrow("not a prefix");
    expect(() => m.delete("10.1.0.300/24", t)).toThrow("not an address");
    expect(m.bytes().length).toBe(before);
    m.noop();
    expect(m.count).toBe(2);
    expect(m.bytes().subarray(before).toString("hex")).toBe("10000000010001000000000000000000");
  });

  it("parses addresses as the kernel stores them", () => {
    const hex = (a: string) => {
      const b = Buffer.alloc(16);
      return b.subarray(0, writeAddress(a, b, 0)).toString("hex");
    };
    expect(hex("192.0.2.255")).toBe("c00002ff");
    expect(hex("::")).toBe("0".repeat(32));
    expect(hex("fe80::1")).toBe("fe800000000000000000000000000001");
    expect(hex("2001:db8::")).toBe("20010db8000000000000000000000000");
    expect(hex("::ffff:192.0.2.1")).toBe("00000000000000000000ffffc0000201");
    expect(hex("1:2:3:4:5:6:7:8")).toBe("00010002000300040005000600070008");
    for (const bad of ["1.2.3", "1.2.3.4.5", "256.0.0.1", "1::2::3", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "12345::", "g::1", "1:2:3:4:5:6:7::8"]) {
      expect(() => hex(bad), bad).toThrow("not an address");
    }
  });
});

// Seeded fuzzing of everything that touches bytes from the wire: the codec, the typed readers, the
// lease builder and the state machine. Same seed, same cases, so a failure is reproducible.
import { describe, expect, it } from "vitest";
import { checkReply, decodeMessage, type DhcpMessage } from "./codec.js";
import { initialState, step } from "./client-fsm.js";
import { DEFAULT_TIMING, type ClientState, type FsmConfig } from "./fsm-types.js";
import { leaseFromAck } from "./lease.js";
import { MessageType, Opt, readAddress, readAddressList, readClasslessRoutes, readText, readU16, readU32, readU8 } from "./options.js";
import { seededRng } from "./seeded-rng.js";
import { MAC, replyBytes } from "./test-support/replies.js";

const SEED = 0x5eed2131;
const rng = seededRng(SEED);
const int = (n: number): number => Math.floor(rng() * n);
const randomBytes = (n: number): Buffer => Buffer.from(Array.from({ length: n }, () => int(256)));

const cfg: FsmConfig = {
  mac: MAC,
  clientId: Uint8Array.of(1, ...MAC),
  parameterRequestList: [1, 3, 6],
  maxMessageSize: 1472,
  ...DEFAULT_TIMING,
  arpCheck: false,
  rng: seededRng(1),
};

const XID = 0x01020304;

function validReplies(): Buffer[] {
  return [
    replyBytes({ type: MessageType.Offer, xid: XID, yiaddr: "192.0.2.10", leaseTime: 600, mask: "255.255.255.0", routers: ["192.0.2.1"] }),
    replyBytes({
      type: MessageType.Ack,
      xid: XID,
      yiaddr: "192.0.2.10",
      leaseTime: 600,
      t1: 100,
      t2: 200,
      mask: "255.255.255.0",
      dns: ["192.0.2.53", "192.0.2.54"],
      domain: "isp.test",
      classless: [
        { destination: "0.0.0.0", prefixLength: 0, gateway: "192.0.2.1" },
        { destination: "198.51.100.0", prefixLength: 24, gateway: "192.0.2.2" },
      ],
    }),
    replyBytes({ type: MessageType.Nak, xid: XID, message: "wrong network" }),
  ];
}

/** Exercises every reader on a decoded message; any throw fails the test. */
function readEverything(m: DhcpMessage): void {
  for (const code of [Opt.MessageType, Opt.Overload]) readU8(m.options, code);
  readU16(m.options, Opt.InterfaceMtu);
  for (const code of [Opt.LeaseTime, Opt.RenewalTime, Opt.RebindingTime]) readU32(m.options, code);
  for (const code of [Opt.SubnetMask, Opt.ServerId, Opt.BroadcastAddress]) readAddress(m.options, code);
  for (const code of [Opt.Router, Opt.DnsServers, Opt.NtpServers]) readAddressList(m.options, code);
  for (const code of [Opt.DomainName, Opt.HostName, Opt.Message]) readText(m.options, code);
  readClasslessRoutes(m.options);
  leaseFromAck(m, 0, "192.0.2.1");
  checkReply(m, XID, MAC);
}

function statesUnderTest(): ClientState[] {
  const selecting = step(initialState(), { type: "start", now: 0 }, cfg).state;
  return [{ ...selecting, xid: XID }, { ...selecting, xid: XID, phase: "requesting", offer: { address: "192.0.2.10", serverId: "192.0.2.1" } }];
}

/** Decodes, reads, and feeds the packet to the state machine; a message for someone else must change nothing. */
function exercise(bytes: Buffer): boolean {
  const d = decodeMessage(bytes);
  if (!d.ok) {
    expect(typeof d.error).toBe("string");
    return false;
  }
  const m = d.message;
  expect(m.chaddr.length).toBe(m.hlen);
  expect(m.hlen).toBeLessThanOrEqual(16);
  for (const v of m.options.values()) expect(v).toBeInstanceOf(Uint8Array);
  readEverything(m);
  const forUs = m.xid === XID && Buffer.from(m.chaddr).equals(Buffer.from(MAC));
  for (const s of statesUnderTest()) {
    const t = step(s, { type: "packet", now: 1000, message: m }, cfg);
    if (!forUs) {
      expect(t.state).toEqual(s);
      expect(t.actions.every((a) => a.type === "ignored")).toBe(true);
    }
  }
  return true;
}

describe(`codec fuzz (seed ${SEED.toString(16)})`, () => {
  it("survives 3000 random byte strings", () => {
    for (let i = 0; i < 3000; i++) exercise(randomBytes(int(700)));
  });

  it("survives random byte strings behind a valid header and cookie (2000 cases)", () => {
    const header = validReplies()[1]!.subarray(0, 240);
    let decoded = 0;
    for (let i = 0; i < 2000; i++) if (exercise(Buffer.concat([header, randomBytes(int(400))]))) decoded++;
    expect(decoded).toBeGreaterThan(0);
  });

  it("survives every truncation of valid replies", () => {
    for (const good of validReplies()) {
      for (let len = 0; len <= good.length; len++) exercise(good.subarray(0, len));
    }
  });

  it("survives 4000 mutated valid replies (flipped bytes, bad lengths, foreign xids and MACs)", () => {
    const goods = validReplies();
    let foreign = 0;
    for (let i = 0; i < 4000; i++) {
      const b = Buffer.from(goods[int(goods.length)]!);
      const flips = 1 + int(6);
      for (let f = 0; f < flips; f++) {
        // Bias toward the header (xid, chaddr, hlen) and the option lengths.
        const pos = rng() < 0.4 ? int(44) : 240 + int(b.length - 240);
        b[pos] = int(256);
      }
      if (b.readUInt32BE(4) !== XID) foreign++;
      exercise(b);
    }
    expect(foreign).toBeGreaterThan(100);
  });

  it("never accepts a wrong magic cookie (500 cases)", () => {
    const good = validReplies()[0]!;
    for (let i = 0; i < 500; i++) {
      const b = Buffer.from(good);
      const v = int(0x100000000);
      b.writeUInt32BE(v === 0x63825363 ? v + 1 : v, 236);
      expect(decodeMessage(b).ok).toBe(false);
    }
  });

  it("survives random overloaded file/sname fields (2000 cases)", () => {
    const good = validReplies()[1]!;
    const end = good.subarray(240).indexOf(255);
    for (let i = 0; i < 2000; i++) {
      const b = Buffer.concat([good.subarray(0, 240 + end), Buffer.from([52, 1, 1 + int(3), 255])]);
      randomBytes(64).copy(b, 44);
      randomBytes(128).copy(b, 108);
      exercise(b);
    }
  });
});

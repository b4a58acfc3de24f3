// What we ask an upstream and how we check what comes back: our own id, EDNS with our UDP size and DO when
// needed, and a reply accepted only when its id, flags and question are the ones we sent (RFC 5452: no
// cache poisoning by mismatched replies).
import { CLASS, EDNS_DO, EDNS_UDP_SIZE, FLAG, TYPE } from "../wire/constants.js";
import { WireError } from "../wire/errors.js";
import { decodeMessage, type Message } from "../wire/message.js";
import { nameEquals, type Name } from "../wire/name.js";

export interface UpstreamQuestion {
  name: Name;
  type: number;
  class: number;
  /** Ask for DNSSEC records (the client set DO, or we validate). */
  dnssecOk: boolean;
  /** Ask the upstream not to validate (we validate ourselves, or the client asked). */
  checkingDisabled: boolean;
}

/** The query in wire form with `id`. */
export function encodeUpstreamQuery(q: UpstreamQuestion, id: number): Buffer {
  const out = Buffer.allocUnsafe(12 + q.name.length + 4 + 11);
  out.writeUInt16BE(id, 0);
  out.writeUInt16BE(FLAG.RD | (q.checkingDisabled ? FLAG.CD : 0), 2);
  out.writeUInt16BE(1, 4);
  out.writeUInt16BE(0, 6);
  out.writeUInt16BE(0, 8);
  out.writeUInt16BE(1, 10);
  let pos = 12 + q.name.copy(out, 12);
  out.writeUInt16BE(q.type, pos);
  out.writeUInt16BE(q.class, pos + 2);
  pos += 4;
  out[pos] = 0;
  out.writeUInt16BE(TYPE.OPT, pos + 1);
  out.writeUInt16BE(EDNS_UDP_SIZE, pos + 3);
  out.writeUInt32BE(q.dnssecOk ? EDNS_DO : 0, pos + 5);
  out.writeUInt16BE(0, pos + 9);
  return out;
}

/** Decodes an upstream's reply and checks it answers our query; throws WireError otherwise. */
export function acceptResponse(wire: Buffer, id: number, q: UpstreamQuestion): Message {
  if (wire.length < 12 || wire.readUInt16BE(0) !== id) throw new WireError("reply id does not match");
  const msg = decodeMessage(wire);
  if ((msg.flags & FLAG.QR) === 0) throw new WireError("not a response");
  const asked = msg.questions[0];
  // A truncated reply may legitimately come without its question.
  if (msg.questions.length === 0 && (msg.flags & FLAG.TC) !== 0) return msg;
  if (msg.questions.length !== 1 || asked === undefined || asked.type !== q.type || asked.class !== q.class || !nameEquals(asked.name, q.name)) {
    throw new WireError("reply is for another question");
  }
  return msg;
}

export const isTruncated = (m: Message): boolean => (m.flags & FLAG.TC) !== 0;

export function upstreamQuestion(name: Name, type: number, opts: { dnssecOk: boolean; checkingDisabled: boolean }): UpstreamQuestion {
  // A plain literal, not a spread: one hidden class for every question (see wire/message.ts decodeMessage).
  return { name, type, class: CLASS.IN, dnssecOk: opts.dnssecOk, checkingDisabled: opts.checkingDisabled };
}

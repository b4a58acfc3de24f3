// DHCPv6 client/server message codec (RFC 8415 §8). Pure; decoding never throws.
import { MessageType } from "./constants.js";
import { decodeOptionList, encodeOptionList, type Dhcp6Option } from "./options.js";
import { ByteWriter, DecodeError } from "./wire.js";

export interface Dhcp6Message {
  type: number;
  /** 24-bit transaction id. */
  xid: number;
  options: Dhcp6Option[];
}

export type DecodeResult = { ok: true; message: Dhcp6Message } | { ok: false; error: string };

export const MAX_MESSAGE_SIZE = 65_535;

export function decodeMessage(buf: Uint8Array): DecodeResult {
  try {
    if (buf.length < 4) throw new DecodeError(`message of ${buf.length} bytes is shorter than the 4-byte header`);
    if (buf.length > MAX_MESSAGE_SIZE) throw new DecodeError("message larger than a UDP payload");
    const type = buf[0]!;
    if (type === 0 || type === MessageType.RELAY_FORW || type === MessageType.RELAY_REPL) {
      throw new DecodeError(`message type ${type} is not a client/server message`);
    }
    const xid = (buf[1]! << 16) | (buf[2]! << 8) | buf[3]!;
    return { ok: true, message: { type, xid, options: decodeOptionList(buf.subarray(4)) } };
  } catch (err) {
    if (err instanceof DecodeError) return { ok: false, error: err.message };
    throw err;
  }
}

export function encodeMessage(m: Dhcp6Message): Uint8Array {
  return new ByteWriter()
    .u8(m.type)
    .u24(m.xid & 0xffffff)
    .bytes(encodeOptionList(m.options))
    .finish();
}

// A minimal DNS client for unit tests: builds a query with the options a test needs, sends it over UDP or
// TCP to a local port and decodes the reply.
import { createSocket } from "node:dgram";
import { connect } from "node:net";
import { CLASS, EDNS_DO, FLAG, TYPE } from "../wire/constants.js";
import { decodeMessage, encodeMessage, type Message } from "../wire/message.js";
import { nameFromText } from "../wire/name.js";

export interface TestQuery {
  name: string;
  type?: keyof typeof TYPE;
  id?: number;
  edns?: boolean;
  udpSize?: number;
  dnssecOk?: boolean;
  checkingDisabled?: boolean;
  ednsVersion?: number;
  qclass?: number;
}

export function buildQuery(q: TestQuery): Buffer {
  const msg: Message = {
    id: q.id ?? 0x1234,
    flags: FLAG.RD | (q.checkingDisabled ? FLAG.CD : 0),
    rcode: 0,
    questions: [{ name: nameFromText(q.name), type: TYPE[q.type ?? "A"], class: q.qclass ?? CLASS.IN }],
    answers: [],
    authorities: [],
    additionals: [],
  };
  if (q.edns !== false) msg.edns = { udpSize: q.udpSize ?? 1232, version: q.ednsVersion ?? 0, flags: q.dnssecOk ? EDNS_DO : 0, options: [] };
  return Buffer.from(encodeMessage(msg).wire);
}

export function udpExchange(port: number, wire: Buffer, address = "127.0.0.1", timeoutMs = 3000): Promise<Buffer> {
  const s = createSocket(address.includes(":") ? "udp6" : "udp4");
  return new Promise<Buffer>((resolve, reject) => {
    const timer = setTimeout(() => {
      s.close();
      reject(new Error("udp timeout"));
    }, timeoutMs);
    s.on("message", (m) => {
      clearTimeout(timer);
      s.close();
      resolve(m);
    });
    s.send(wire, port, address);
  });
}

export function tcpExchange(port: number, wires: Buffer[], address = "127.0.0.1", timeoutMs = 3000): Promise<Buffer[]> {
  return new Promise<Buffer[]>((resolve, reject) => {
    const socket = connect({ host: address, port });
    const out: Buffer[] = [];
    let buf = Buffer.alloc(0);
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`tcp timeout after ${out.length} of ${wires.length} replies`));
    }, timeoutMs);
    socket.on("connect", () => {
      socket.write(Buffer.concat(wires.map((w) => Buffer.concat([Buffer.from([w.length >> 8, w.length & 255]), w]))));
    });
    socket.on("data", (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
        out.push(Buffer.from(buf.subarray(2, 2 + buf.readUInt16BE(0))));
        buf = buf.subarray(2 + buf.readUInt16BE(0));
      }
      if (out.length === wires.length) {
        clearTimeout(timer);
        socket.end();
        resolve(out);
      }
    });
    socket.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

export async function ask(port: number, q: TestQuery, address?: string): Promise<Message> {
  return decodeMessage(await udpExchange(port, buildQuery(q), address));
}

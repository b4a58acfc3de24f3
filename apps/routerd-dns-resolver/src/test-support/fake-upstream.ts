// An in-process DNS server on loopback for unit tests of the forwarding path (the namespace tests use a
// real unbound). It answers from a table, and can be told to stall, fail, truncate or lie.
import { createSocket, type Socket } from "node:dgram";
import { createServer, type Server } from "node:net";
import { CLASS, FLAG, RCODE, TYPE } from "../wire/constants.js";
import { decodeMessage, encodeMessage, type Message, type ResourceRecord } from "../wire/message.js";
import { nameFromText, nameKey, nameToText } from "../wire/name.js";
import { parseRecordData } from "../zones/record-text.js";

export type Behaviour = "answer" | "stall" | "servfail" | "truncate" | "wrong-question" | "wrong-id";

export interface FakeRecord {
  name: string;
  type: keyof typeof TYPE;
  data: string;
  ttl?: number;
}

export class FakeUpstream {
  udp!: Socket;
  tcp!: Server;
  port = 0;
  behaviour: Behaviour = "answer";
  /** Questions seen, "name TYPE" in lower case. */
  readonly seen: string[] = [];
  readonly seenMessages: Message[] = [];
  private readonly records = new Map<string, ResourceRecord[]>();
  /** Names answered NXDOMAIN with this SOA. */
  soaTtl = 60;
  delayMs = 0;

  add(...rs: FakeRecord[]): this {
    for (const r of rs) {
      const name = nameFromText(r.name);
      const type = TYPE[r.type];
      const key = `${nameKey(name)}/${type}`;
      const list = this.records.get(key) ?? [];
      list.push({ name, type, class: CLASS.IN, ttl: r.ttl ?? 300, data: parseRecordData(type, r.data) });
      this.records.set(key, list);
    }
    return this;
  }

  async start(): Promise<this> {
    this.udp = createSocket("udp4");
    await new Promise<void>((resolve) => this.udp.bind(0, "127.0.0.1", resolve));
    this.port = this.udp.address().port;
    this.udp.on("message", (msg, rinfo) => {
      const out = this.answer(msg, 1232);
      if (out === undefined) return;
      setTimeout(() => {
        try {
          this.udp.send(out, rinfo.port, rinfo.address);
        } catch {
          // closed by the test meanwhile
        }
      }, this.delayMs);
    });
    this.tcp = createServer((socket) => {
      let buf = Buffer.alloc(0);
      socket.on("data", (chunk: Buffer) => {
        buf = Buffer.concat([buf, chunk]);
        while (buf.length >= 2 && buf.length >= 2 + buf.readUInt16BE(0)) {
          const msg = buf.subarray(2, 2 + buf.readUInt16BE(0));
          buf = buf.subarray(2 + msg.length);
          const out = this.answer(Buffer.from(msg), 65535, true);
          if (out === undefined) continue;
          const framed = Buffer.alloc(out.length + 2);
          framed.writeUInt16BE(out.length, 0);
          out.copy(framed, 2);
          socket.write(framed);
        }
      });
      socket.on("error", () => undefined);
    });
    await new Promise<void>((resolve) => this.tcp.listen(this.port, "127.0.0.1", resolve));
    return this;
  }

  private answer(wire: Buffer, size: number, tcp = false): Buffer | undefined {
    const query = decodeMessage(wire);
    const q = query.questions[0]!;
    this.seen.push(`${nameToText(q.name).toLowerCase()} ${Object.entries(TYPE).find(([, v]) => v === q.type)?.[0] ?? q.type}${tcp ? " tcp" : ""}`);
    this.seenMessages.push(query);
    if (this.behaviour === "stall") return undefined;
    const reply: Message = { id: query.id, flags: FLAG.QR | FLAG.RA | (query.flags & FLAG.RD), rcode: RCODE.NOERROR, questions: query.questions, answers: [], authorities: [], additionals: [], edns: { udpSize: 1232, version: 0, flags: query.edns?.flags ?? 0, options: [] } };
    if (this.behaviour === "servfail") return encodeMessage({ ...reply, rcode: RCODE.SERVFAIL }).wire;
    if (this.behaviour === "wrong-id") return encodeMessage({ ...reply, id: (query.id + 1) & 0xffff }).wire;
    if (this.behaviour === "wrong-question") return encodeMessage({ ...reply, questions: [{ ...q, name: nameFromText("evil.example.") }] }).wire;
    if (this.behaviour === "truncate" && !tcp) return encodeMessage({ ...reply, flags: reply.flags | FLAG.TC }).wire;
    const answers = this.records.get(`${nameKey(q.name)}/${q.type}`);
    const exists = [...this.records.keys()].some((k) => k.startsWith(`${nameKey(q.name)}/`));
    if (answers !== undefined) reply.answers = answers.map((r) => ({ ...r, name: q.name }));
    else {
      reply.rcode = exists ? RCODE.NOERROR : RCODE.NXDOMAIN;
      const nums = Buffer.alloc(20);
      [1, 3600, 600, 86400, this.soaTtl].forEach((v, i) => nums.writeUInt32BE(v, i * 4));
      reply.authorities = [{ name: nameFromText("example."), type: TYPE.SOA, class: CLASS.IN, ttl: this.soaTtl, data: Buffer.concat([nameFromText("ns.example."), nameFromText("admin.example."), nums]) }];
    }
    return encodeMessage(reply, { maxSize: size }).wire;
  }

  close(): void {
    this.udp.close();
    this.tcp.close();
  }
}

// A Kafka broker stand-in for the tests, run inside the test's namespace (no Kafka broker is packaged for
// Debian 12 or npm): a single node (id 0) that speaks just enough of the Kafka wire protocol for a producer,
// written from the protocol description (kafka.apache.org/protocol): ApiVersions v0-2, Metadata v0-6 and
// Produce v3-7 (non-flexible versions only). Every Produce request's record sets are decoded as RecordBatch
// v2 (magic 2), each batch's CRC32C checked, gzip-compressed batches inflated; records are kept with key,
// value, headers and timestamp. A batch that fails to decode is answered CORRUPT_MESSAGE and kept under
// `errors`. Any topic asked for exists with one partition led by this node.
// GET /received on the HTTP port returns {requests, records, errors}. Prints {"port":N,"http":M} when
// ready; runs until killed.   Usage: node kafka-receiver.mjs
import { createServer as createHttpServer } from "node:http";
import { createServer } from "node:net";
import { gunzipSync } from "node:zlib";

const API = { produce: 0, metadata: 3, apiVersions: 18 };
/** The versions this broker answers (the producer picks the highest both sides know). */
const SUPPORTED = [
  [API.produce, 3, 7],
  [API.metadata, 0, 6],
  [API.apiVersions, 0, 2],
];
const ERR = { none: 0, corruptMessage: 2, unsupportedVersion: 35 };

const received = { requests: [], records: [], errors: [] };
const offsets = new Map(); // "topic/partition" -> next offset

// --- CRC32C (Castagnoli, reflected polynomial 0x82F63B78), what RecordBatch v2 uses ----------------------
const CRC32C_TABLE = new Uint32Array(256).map((_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0x82f63b78 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});
function crc32c(buf) {
  let c = 0xffffffff;
  for (const b of buf) c = CRC32C_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}
// The standard check value: a broken table would let every batch "pass".
if (crc32c(Buffer.from("123456789")) !== 0xe3069283) throw new Error("crc32c self-check failed");

// --- reading ---------------------------------------------------------------------------------------------
class Reader {
  constructor(buf) {
    this.buf = buf;
    this.at = 0;
  }
  int8() { return this.buf.readInt8((this.at += 1) - 1); }
  int16() { return this.buf.readInt16BE((this.at += 2) - 2); }
  int32() { return this.buf.readInt32BE((this.at += 4) - 4); }
  uint32() { return this.buf.readUInt32BE((this.at += 4) - 4); }
  int64() { return this.buf.readBigInt64BE((this.at += 8) - 8); }
  bytes(n) {
    if (n < 0) return null;
    if (this.at + n > this.buf.length) throw new Error(`truncated: ${n} bytes wanted at ${this.at} of ${this.buf.length}`);
    return this.buf.subarray(this.at, (this.at += n));
  }
  string() { return this.bytes(this.int16())?.toString("utf8") ?? null; }
  array(item) {
    const n = this.int32();
    return n < 0 ? null : Array.from({ length: n }, () => item());
  }
  /** Unsigned LEB128 then zigzag: Kafka's varint / varlong (as a BigInt, then narrowed by the caller). */
  varlong() {
    let v = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (shift > 63n) throw new Error("varint too long");
      const b = this.buf[this.at++];
      if (b === undefined) throw new Error("truncated varint");
      v |= BigInt(b & 0x7f) << shift;
      if (!(b & 0x80)) break;
    }
    return (v >> 1n) ^ -(v & 1n);
  }
  varint() { return Number(this.varlong()); }
  varBytes() { return this.bytes(this.varint()); }
  get done() { return this.at >= this.buf.length; }
}

// --- writing ---------------------------------------------------------------------------------------------
class Writer {
  parts = [];
  raw(b) { this.parts.push(b); return this; }
  int8(v) { const b = Buffer.alloc(1); b.writeInt8(v); return this.raw(b); }
  int16(v) { const b = Buffer.alloc(2); b.writeInt16BE(v); return this.raw(b); }
  int32(v) { const b = Buffer.alloc(4); b.writeInt32BE(v); return this.raw(b); }
  int64(v) { const b = Buffer.alloc(8); b.writeBigInt64BE(BigInt(v)); return this.raw(b); }
  string(s) {
    if (s === null) return this.int16(-1);
    const b = Buffer.from(s, "utf8");
    return this.int16(b.length).raw(b);
  }
  array(items, each) {
    this.int32(items.length);
    for (const i of items) each(i);
    return this;
  }
  get buffer() { return Buffer.concat(this.parts); }
}

// --- RecordBatch v2 --------------------------------------------------------------------------------------
function decodeRecords(r, count, base) {
  const out = [];
  for (let i = 0; i < count; i++) {
    const len = r.varint();
    const rec = new Reader(r.bytes(len));
    rec.int8(); // attributes: unused
    const timestampDelta = rec.varlong();
    const offsetDelta = rec.varint();
    const key = rec.varBytes();
    const value = rec.varBytes();
    const headers = {};
    const nh = rec.varint();
    for (let h = 0; h < nh; h++) headers[rec.varBytes().toString("utf8")] = rec.varBytes()?.toString("utf8") ?? null;
    if (!rec.done) throw new Error(`record ${i}: ${rec.buf.length - rec.at} bytes left over`);
    out.push({ offsetDelta, timestamp: Number(base + timestampDelta), key: key?.toString("utf8") ?? null, value: value?.toString("utf8") ?? null, headers });
  }
  return out;
}

/** Every batch in a partition's record set; throws on anything malformed (CRC included). */
function decodeRecordSet(buf) {
  const r = new Reader(buf);
  const batches = [];
  while (!r.done) {
    r.int64(); // baseOffset: the producer sends 0, the broker assigns
    const length = r.int32();
    const body = new Reader(r.bytes(length));
    body.int32(); // partitionLeaderEpoch
    const magic = body.int8();
    if (magic !== 2) throw new Error(`magic ${magic}: only RecordBatch v2 is understood`);
    const crc = body.uint32();
    const computed = crc32c(body.buf.subarray(body.at));
    if (crc !== computed) throw new Error(`CRC32C mismatch: batch says ${crc.toString(16)}, content is ${computed.toString(16)}`);
    const attributes = body.int16();
    const lastOffsetDelta = body.int32();
    const firstTimestamp = body.int64();
    body.int64(); // maxTimestamp
    const producerId = body.int64();
    body.int16(); // producerEpoch
    body.int32(); // baseSequence
    const count = body.int32();
    const compression = attributes & 0x07;
    let records = body;
    if (compression === 1) records = new Reader(gunzipSync(body.bytes(body.buf.length - body.at)));
    else if (compression !== 0) throw new Error(`compression codec ${compression} is not understood by this receiver`);
    const decoded = decodeRecords(records, count, firstTimestamp);
    if (!records.done) throw new Error("bytes left over after the records");
    if (decoded.length && decoded.at(-1).offsetDelta !== lastOffsetDelta) throw new Error(`lastOffsetDelta ${lastOffsetDelta} but the last record has ${decoded.at(-1).offsetDelta}`);
    batches.push({ compression, producerId: Number(producerId), records: decoded });
  }
  return batches;
}

// --- requests --------------------------------------------------------------------------------------------
function apiVersions(_r, version, w) {
  w.int16(ERR.none).array(SUPPORTED, ([key, min, max]) => w.int16(key).int16(min).int16(max));
  if (version >= 1) w.int32(0);
}

function metadata(r, version, w, self) {
  const asked = r.array(() => r.string());
  const names = asked === null || (version === 0 && asked.length === 0) ? [...new Set(received.records.map((x) => x.topic))] : asked;
  if (version >= 3) w.int32(0); // throttle
  w.array([0], (id) => {
    w.int32(id).string(self.host).int32(self.port);
    if (version >= 1) w.string(null); // rack
  });
  if (version >= 2) w.string("routerd-test-cluster");
  if (version >= 1) w.int32(0); // controller
  w.array(names, (name) => {
    w.int16(ERR.none).string(name);
    if (version >= 1) w.int8(0); // not internal
    w.array([0], (p) => {
      w.int16(ERR.none).int32(p).int32(0).array([0], (n) => w.int32(n)).array([0], (n) => w.int32(n));
      if (version >= 5) w.array([], () => undefined); // offline replicas
    });
  });
}

function produce(r, version, w) {
  r.string(); // transactionalId
  const acks = r.int16();
  r.int32(); // timeout
  const topics = r.array(() => ({ name: r.string(), partitions: r.array(() => ({ index: r.int32(), set: r.bytes(r.int32()) })) }));
  const answers = topics.map((t) => ({
    name: t.name,
    partitions: t.partitions.map((p) => {
      const key = `${t.name}/${p.index}`;
      const base = offsets.get(key) ?? 0;
      try {
        let next = base;
        for (const batch of decodeRecordSet(p.set ?? Buffer.alloc(0))) {
          for (const rec of batch.records) received.records.push({ topic: t.name, partition: p.index, offset: next + rec.offsetDelta, compression: batch.compression, ...rec });
          next += (batch.records.at(-1)?.offsetDelta ?? -1) + 1;
        }
        offsets.set(key, next);
        return { index: p.index, error: ERR.none, base };
      } catch (err) {
        received.errors.push(`produce ${key}: ${err.message}`);
        return { index: p.index, error: ERR.corruptMessage, base: -1 };
      }
    }),
  }));
  if (acks === 0) return false; // no response expected
  w.array(answers, (t) => {
    w.string(t.name).array(t.partitions, (p) => {
      w.int32(p.index).int16(p.error).int64(p.base).int64(-1); // logAppendTime: -1, CreateTime topics
      if (version >= 5) w.int64(0); // logStartOffset
    });
  });
  w.int32(0); // throttle
  return true;
}

const HANDLERS = { [API.apiVersions]: apiVersions, [API.metadata]: metadata, [API.produce]: produce };

function handle(frame, self) {
  const r = new Reader(frame);
  const apiKey = r.int16();
  const version = r.int16();
  const correlationId = r.int32();
  const clientId = r.string();
  received.requests.push({ apiKey, version, clientId });
  const w = new Writer().int32(correlationId);
  const range = SUPPORTED.find(([k]) => k === apiKey);
  if (!range) throw new Error(`api key ${apiKey} is not implemented by this receiver`);
  if (version < range[1] || version > range[2]) {
    // ApiVersions answers UNSUPPORTED_VERSION in its v0 form, the way brokers do; others are a client bug.
    if (apiKey !== API.apiVersions) throw new Error(`api key ${apiKey} version ${version} was not offered`);
    w.int16(ERR.unsupportedVersion).array(SUPPORTED, ([k, min, max]) => w.int16(k).int16(min).int16(max));
  } else if (HANDLERS[apiKey](r, version, w, self) === false) return undefined;
  const body = w.buffer;
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  return Buffer.concat([size, body]);
}

const broker = createServer((sock) => {
  let buf = Buffer.alloc(0);
  sock.on("error", () => undefined);
  sock.on("data", (d) => {
    buf = Buffer.concat([buf, d]);
    while (buf.length >= 4 && buf.length >= 4 + buf.readInt32BE(0)) {
      const frame = buf.subarray(4, 4 + buf.readInt32BE(0));
      buf = buf.subarray(4 + frame.length);
      try {
        const out = handle(frame, { host: "127.0.0.1", port: broker.address().port });
        if (out) sock.write(out);
      } catch (err) {
        received.errors.push(err.message);
        sock.destroy();
        return;
      }
    }
  });
});

const http = createHttpServer((req, res) => {
  if (req.method === "GET" && req.url === "/received") res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(received));
  else res.writeHead(404).end();
});

await new Promise((r) => broker.listen(0, "127.0.0.1", r));
await new Promise((r) => http.listen(0, "127.0.0.1", r));
process.stdout.write(JSON.stringify({ port: broker.address().port, http: http.address().port }) + "\n");

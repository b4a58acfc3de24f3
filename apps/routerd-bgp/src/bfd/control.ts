// bfdd's control socket (--bfdctl): a stream of framed JSON messages. Each frame is a header of 8 bytes
// (payload length, u32 big-endian; id, u16; type, u8; version 1, u8) and a JSON payload. Asking for
// peer-state notifications (type 4, payload: a u64 flag set in bfdd's byte order) makes bfdd send every
// session's state now and on every change ({"op":"status","peer-address","local-address","state",...}):
// no polling, a Down arrives the moment bfdd declares it.
import { EventEmitter } from "node:events";
import { connect, type Socket } from "node:net";

const HEADER = 8;
const VERSION = 1;
const TYPE_RESPONSE = 1;
const TYPE_NOTIFY = 4;
const NOTIFY_PEER_STATE = 1n;

export type BfdState = "up" | "down" | "init" | "adm-down";

export interface BfdNotification {
  peer: string;
  local: string;
  state: BfdState;
}

/** Encodes one request frame. */
export function encodeFrame(type: number, id: number, payload: Buffer): Buffer {
  const h = Buffer.alloc(HEADER);
  h.writeUInt32BE(payload.length, 0);
  h.writeUInt16BE(id, 4);
  h.writeUInt8(type, 6);
  h.writeUInt8(VERSION, 7);
  return Buffer.concat([h, payload]);
}

/** The subscription to every session's state (bfdd copies the flags as a host-order u64). */
export function subscribeFrame(id = 1): Buffer {
  const flags = Buffer.alloc(8);
  if (new Uint8Array(new Uint16Array([1]).buffer)[0] === 1) flags.writeBigUInt64LE(NOTIFY_PEER_STATE);
  else flags.writeBigUInt64BE(NOTIFY_PEER_STATE);
  return encodeFrame(TYPE_NOTIFY, id, flags);
}

/** Splits a byte stream into frames; returns the complete ones and the rest. */
export function decodeFrames(buf: Buffer): { frames: { type: number; json: unknown }[]; rest: Buffer } {
  const frames: { type: number; json: unknown }[] = [];
  let at = 0;
  while (buf.length - at >= HEADER) {
    const len = buf.readUInt32BE(at);
    if (buf.length - at < HEADER + len) break;
    const type = buf.readUInt8(at + 6);
    let json: unknown;
    try {
      json = JSON.parse(buf.subarray(at + HEADER, at + HEADER + len).toString("utf8"));
    } catch {
      json = undefined;
    }
    frames.push({ type, json });
    at += HEADER + len;
  }
  return { frames, rest: buf.subarray(at) };
}

const STATES = new Set(["up", "down", "init", "adm-down"]);

export function parseNotification(json: unknown): BfdNotification | undefined {
  const o = json as Record<string, unknown> | undefined;
  if (o?.op !== "status" || typeof o["peer-address"] !== "string" || !STATES.has(String(o.state))) return undefined;
  return { peer: o["peer-address"], local: String(o["local-address"] ?? ""), state: o.state as BfdState };
}

/** Events: "state" (BfdNotification), "connected", "lost" (the connection ended: states unknown). Reconnects by itself. */
export class BfdControl extends EventEmitter {
  private socket: Socket | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  connected = false;

  constructor(
    private readonly path: string,
    private readonly retryMs = 200,
  ) {
    super();
  }

  start(): void {
    this.closed = false;
    this.open();
  }

  private open(): void {
    if (this.closed) return;
    let buf: Buffer = Buffer.alloc(0);
    const s = connect(this.path);
    this.socket = s;
    s.on("connect", () => s.write(subscribeFrame()));
    s.on("data", (d: Buffer) => {
      const { frames, rest } = decodeFrames(Buffer.concat([buf, d]));
      buf = rest;
      for (const f of frames) {
        if (f.type === TYPE_RESPONSE && !this.connected) {
          this.connected = true;
          this.emit("connected");
        } else if (f.type === TYPE_NOTIFY) {
          const n = parseNotification(f.json);
          if (n !== undefined) this.emit("state", n);
        }
      }
    });
    s.on("error", () => undefined);
    s.on("close", () => {
      if (this.socket !== s) return;
      this.socket = undefined;
      if (this.connected) {
        this.connected = false;
        this.emit("lost");
      }
      if (!this.closed) {
        this.timer = setTimeout(() => this.open(), this.retryMs);
        this.timer.unref();
      }
    });
  }

  stop(): void {
    this.closed = true;
    clearTimeout(this.timer);
    this.socket?.destroy();
    this.socket = undefined;
    this.connected = false;
  }
}

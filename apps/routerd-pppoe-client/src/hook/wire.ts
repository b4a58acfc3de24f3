// The one gRPC call a pppd hook makes (routerd.daemon.v1.Daemon/Command), over node:http2 with the request
// encoded by hand: a hook runs on every session change, and loading grpc-js plus protobuf for one call
// would cost more than the rest of the hook. wire.test.ts checks the bytes against the generated decoder.
import { connect as http2Connect, constants } from "node:http2";
import { connect as netConnect } from "node:net";

export const COMMAND_PATH = "/routerd.daemon.v1.Daemon/Command";

function varint(n: number): number[] {
  const out: number[] = [];
  let v = n;
  while (v > 0x7f) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return out;
}

/** A length-delimited field (wire type 2). */
function field(number: number, payload: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([(number << 3) | 2, ...varint(payload.length)]), payload]);
}

/** routerd.daemon.v1.CommandRequest { string name = 1; map<string, string> args = 2; } */
export function encodeCommandRequest(name: string, args: Record<string, string>): Buffer {
  const parts = [field(1, Buffer.from(name, "utf8"))];
  for (const [key, value] of Object.entries(args)) {
    parts.push(field(2, Buffer.concat([field(1, Buffer.from(key, "utf8")), field(2, Buffer.from(value, "utf8"))])));
  }
  return Buffer.concat(parts);
}

/** gRPC's length-prefixed message: 1 byte "not compressed", 4 bytes big-endian length, the message. */
export function grpcFrame(message: Buffer): Buffer {
  const head = Buffer.alloc(5);
  head.writeUInt32BE(message.length, 1);
  return Buffer.concat([head, message]);
}

export interface CallResult {
  /** grpc-status (0 is OK); undefined when the call did not get that far. */
  status?: number;
  message: string;
}

/** One unary Command call on a Unix socket; never throws. */
export function callCommand(socket: string, name: string, args: Record<string, string>, timeoutMs: number): Promise<CallResult> {
  return new Promise((resolve) => {
    let settled = false;
    const session = http2Connect("http://localhost", { createConnection: () => netConnect(socket) });
    const finish = (r: CallResult): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      session.close();
      session.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => finish({ message: `no answer within ${timeoutMs} ms` }), timeoutMs);
    session.on("error", (err) => finish({ message: err.message }));
    const req = session.request({
      [constants.HTTP2_HEADER_METHOD]: "POST",
      [constants.HTTP2_HEADER_PATH]: COMMAND_PATH,
      [constants.HTTP2_HEADER_CONTENT_TYPE]: "application/grpc",
      te: "trailers",
    });
    req.on("error", (err) => finish({ message: err.message }));
    let status: number | undefined;
    let message = "";
    const take = (headers: Record<string, unknown>): void => {
      if (headers["grpc-status"] !== undefined) status = Number(headers["grpc-status"]);
      if (typeof headers["grpc-message"] === "string") message = decodeURIComponent(headers["grpc-message"]);
    };
    req.on("response", take);
    req.on("trailers", take);
    req.on("data", () => undefined);
    req.on("end", () => finish({ ...(status !== undefined ? { status } : {}), message }));
    req.end(grpcFrame(encodeCommandRequest(name, args)));
  });
}

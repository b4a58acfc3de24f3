// Syslog over udp (one RFC 5424 datagram per record), tcp (RFC 5424, octet-counted, one connection kept
// and re-opened after an error) and local sockets. Node cannot open unix datagram sockets, so local
// delivery goes through util-linux's logger(1), kept running with the records on its stdin.
import { spawn, type ChildProcessWithoutNullStreams } from "node:child_process";
import { createSocket } from "node:dgram";
import { connect, type Socket } from "node:net";
import { hostname } from "node:os";
import { encodeRfc5424, localBody, octetFrame, priority, type Facility, type SyslogHeader } from "../encode/syslog.js";
import type { TelemetryRecord } from "../record.js";
import { withTimeout, writeStream, type Transport } from "./transport.js";

export interface SyslogTarget {
  network: "unix" | "unixgram" | "tcp" | "udp";
  address: string;
  facility: Facility;
  tag: string;
}

/** Largest datagram sent; longer messages are cut (RFC 5426 asks receivers to take at least 2048). */
export const UDP_MAX_BYTES = 8192;

export function splitHostPort(address: string): { host: string; port: number } {
  const m = /^\[?([^\]]+?)\]?:(\d+)$/.exec(address);
  if (!m) throw new Error(`${address} is not host:port`);
  return { host: m[1]!, port: Number(m[2]) };
}

function header(t: SyslogTarget): SyslogHeader {
  return { facility: t.facility, tag: t.tag, hostname: hostname(), pid: process.pid };
}

function udpTransport(t: SyslogTarget, extra: Record<string, string>): Transport {
  const { host, port } = splitHostPort(t.address);
  const socket = createSocket(host.includes(":") ? "udp6" : "udp4");
  socket.on("error", () => undefined); // reported per send
  socket.unref();
  const h = header(t);
  return {
    send: (records, timeoutMs) =>
      withTimeout(
        Promise.all(
          records.map(
            (r) =>
              new Promise<void>((resolve, reject) => {
                const msg = Buffer.from(encodeRfc5424(r, h, extra), "utf8").subarray(0, UDP_MAX_BYTES);
                socket.send(msg, port, host, (err) => (err ? reject(err) : resolve()));
              }),
          ),
        ).then(() => undefined),
        timeoutMs,
        `syslog udp send to ${t.address}`,
      ),
    close: () => socket.close(),
  };
}

function tcpTransport(t: SyslogTarget, extra: Record<string, string>): Transport {
  const { host, port } = splitHostPort(t.address);
  const h = header(t);
  let socket: Socket | undefined;
  const open = (): Promise<Socket> =>
    new Promise((resolve, reject) => {
      const s = connect({ host, port });
      s.once("connect", () => {
        s.removeListener("error", reject);
        s.on("error", () => s.destroy());
        s.on("close", () => socket === s && (socket = undefined));
        s.unref();
        resolve(s);
      });
      s.once("error", reject);
    });
  return {
    async send(records, timeoutMs) {
      const work = (async () => {
        socket ??= await open();
        await writeStream(socket, Buffer.concat(records.map((r) => octetFrame(encodeRfc5424(r, h, extra)))));
      })();
      await withTimeout(work, timeoutMs, `syslog tcp send to ${t.address}`, () => {
        socket?.destroy();
        socket = undefined;
      }).catch((err) => {
        socket?.destroy();
        socket = undefined;
        throw err;
      });
    },
    close: () => socket?.destroy(),
  };
}

function localTransport(t: SyslogTarget): Transport {
  let child: ChildProcessWithoutNullStreams | undefined;
  let failure: string | undefined;
  const start = (): ChildProcessWithoutNullStreams => {
    // --prio-prefix: each line starts with <PRI>; logger adds the local header (timestamp, tag[pid]).
    const args = ["--socket", t.address, "--prio-prefix", "--tag", t.tag, `--id=${process.pid}`, "--socket-errors=on"];
    if (t.network === "unixgram") args.push("--udp");
    const c = spawn("logger", args, { stdio: ["pipe", "ignore", "pipe"] }) as unknown as ChildProcessWithoutNullStreams;
    c.stderr?.on("data", (d: Buffer) => (failure = d.toString().trim().slice(0, 200)));
    c.on("error", (err) => (failure = err.message));
    c.on("exit", () => child === c && (child = undefined));
    c.stdin.on("error", () => undefined);
    c.unref();
    return c;
  };
  return {
    async send(records, timeoutMs) {
      if (failure) {
        const f = failure;
        failure = undefined;
        child?.kill();
        child = undefined;
        throw new Error(`logger: ${f}`);
      }
      child ??= start();
      const lines = records.map((r) => `<${priority(t.facility, r.level)}>${localBody(r)}\n`).join("");
      await withTimeout(writeStream(child.stdin, lines), timeoutMs, `syslog write to ${t.address}`, () => {
        child?.kill();
        child = undefined;
      });
    },
    close: () => {
      child?.stdin.end();
      child = undefined;
    },
  };
}

export function syslogTransport(t: SyslogTarget, attributes: Record<string, string>): Transport {
  if (t.network === "udp") return udpTransport(t, attributes);
  if (t.network === "tcp") return tcpTransport(t, attributes);
  return localTransport(t);
}

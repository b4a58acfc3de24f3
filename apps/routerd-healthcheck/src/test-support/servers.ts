// Real local peers for probe tests on 127.0.0.1: a TCP listener, HTTP(S) servers with behaviours chosen by
// path, raw TCP servers that garble or reset, and a UDP DNS responder whose behaviour can be switched.
import { createSocket } from "node:dgram";
import { once } from "node:events";
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { createServer, type AddressInfo, type Server, type Socket } from "node:net";
import dnsPacket from "dns-packet";
import { TEST_CERT, TEST_KEY } from "./tls-fixture.js";

export interface Closable {
  port: number;
  close(): Promise<void>;
}

async function listen(server: Server | HttpServer, host = "127.0.0.1"): Promise<number> {
  server.listen(0, host);
  await once(server, "listening");
  return (server.address() as AddressInfo).port;
}

function closer(server: Server | HttpServer, sockets: Set<Socket>): () => Promise<void> {
  return async () => {
    for (const s of sockets) s.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
}

function track(server: Server | HttpServer): Set<Socket> {
  const sockets = new Set<Socket>();
  server.on("connection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  return sockets;
}

/** Accepts connections and records each peer's address. */
export async function tcpListener(): Promise<Closable & { peers: string[] }> {
  const peers: string[] = [];
  const server = createServer((s) => {
    peers.push(s.remoteAddress ?? "");
    s.end();
  });
  const sockets = track(server);
  return { port: await listen(server), peers, close: closer(server, sockets) };
}

/** A port nobody listens on (bound, then released). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  const port = await listen(server);
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface SeenRequest {
  url: string;
  host: string;
}

/** /status/<n> answers n; /hang never answers; /body/<text> answers 200 with "ready: <text>"; anything else 200. Records requests. */
function handler(seen: SeenRequest[]) {
  return (req: IncomingMessage, res: ServerResponse): void => {
    seen.push({ url: req.url ?? "", host: req.headers.host ?? "" });
    if (req.url === "/hang") return;
    const body = /^\/body\/(\w+)$/.exec(req.url ?? "")?.[1];
    if (body !== undefined) {
      res.writeHead(200, { "content-type": "text/plain" });
      res.end(`ready: ${body}`);
      return;
    }
    const status = /^\/status\/(\d{3})$/.exec(req.url ?? "")?.[1];
    res.writeHead(status === undefined ? 200 : Number(status), { "content-type": "text/plain" });
    res.end("x".repeat(100_000));
  };
}

export async function httpServer(): Promise<Closable & { seen: SeenRequest[] }> {
  const seen: SeenRequest[] = [];
  const server = createHttpServer(handler(seen));
  const sockets = track(server);
  return { port: await listen(server), seen, close: closer(server, sockets) };
}

export async function httpsServer(): Promise<Closable & { seen: SeenRequest[] }> {
  const seen: SeenRequest[] = [];
  const server = createHttpsServer({ key: TEST_KEY, cert: TEST_CERT }, handler(seen));
  const sockets = new Set<Socket>();
  server.on("secureConnection", (s: Socket) => {
    sockets.add(s);
    s.on("close", () => sockets.delete(s));
  });
  return { port: await listen(server), seen, close: closer(server, sockets) };
}

/** A TCP server that answers every connection with `reply` ("garbage") or resets it ("reset"). */
export async function rawServer(mode: "garbage" | "reset"): Promise<Closable> {
  const server = createServer((s) => {
    if (mode === "reset") {
      s.resetAndDestroy();
      return;
    }
    s.on("data", () => s.end("SSH-2.0-not-http\r\n\r\n\x00\x01garbage\r\n"));
  });
  const sockets = track(server);
  return { port: await listen(server), close: closer(server, sockets) };
}

export type DnsMode = "answer" | "nxdomain" | "empty" | "garbage" | "wrong-id" | "wrong-question" | "ignore";

export interface DnsResponder extends Closable {
  mode: DnsMode;
  queries: number;
}

/** Answers A/AAAA/TXT queries according to `mode`, switchable at any time. */
export async function dnsResponder(initial: DnsMode = "answer"): Promise<DnsResponder> {
  const socket = createSocket("udp4");
  socket.bind(0, "127.0.0.1");
  await once(socket, "listening");
  const responder: DnsResponder = {
    mode: initial,
    queries: 0,
    port: socket.address().port,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
  socket.on("message", (msg, rinfo) => {
    responder.queries += 1;
    const reply = (buf: Buffer): void => void socket.send(buf, rinfo.port, rinfo.address);
    let query: dnsPacket.DecodedPacket;
    try {
      query = dnsPacket.decode(msg);
    } catch {
      return;
    }
    const q = query.questions?.[0];
    if (q === undefined) return;
    const id = query.id ?? 0;
    const answer = (overrides: Partial<dnsPacket.Packet>): Buffer =>
      dnsPacket.encode({
        type: "response",
        id,
        flags: dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE,
        questions: [q],
        answers: [{ type: "A", name: q.name, ttl: 60, data: "192.0.2.99" }],
        ...overrides,
      });
    const replies: Record<DnsMode, () => void> = {
      answer: () => reply(answer({})),
      nxdomain: () => reply(answer({ flags: 3, answers: [] })),
      empty: () => reply(answer({ answers: [] })),
      // The right id and the response bit, then bytes that do not parse.
      garbage: () => reply(Buffer.concat([msg.subarray(0, 2), Buffer.from([0x81, 0x80, 0x00, 0x01, 0xff, 0xff, 0x00, 0x00, 0x00, 0x00, 0xc0, 0xff, 0x3f])])),
      "wrong-id": () => reply(answer({ id: (id + 1) & 0xffff })),
      "wrong-question": () => reply(answer({ questions: [{ ...q, name: `other.${q.name}` }] })),
      ignore: () => undefined,
    };
    replies[responder.mode]();
  });
  return responder;
}

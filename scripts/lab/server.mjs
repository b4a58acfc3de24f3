#!/usr/bin/env node
// Tiny lab servers: each HTTP listener answers with JSON naming itself, the address it answered on and the
// peer address it saw; each UDP listener echoes the same JSON. That is how the lab proves NAT: the far side
// reports the source it sees.
// Usage: server.mjs --label NAME [--ready FILE] [--http ADDR:PORT]... [--udp ADDR:PORT]...
// ADDR may be IPv6 in brackets ([::]:80 listens on every IPv6 address, 0.0.0.0:80 on every IPv4 one).
// The ready file is written once every listener is bound.
import { createSocket } from "node:dgram";
import { rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    label: { type: "string", default: "lab" },
    ready: { type: "string" },
    http: { type: "string", multiple: true, default: [] },
    udp: { type: "string", multiple: true, default: [] },
  },
});

const split = (spec) => {
  const i = spec.lastIndexOf(":");
  return { address: spec.slice(0, i).replace(/^\[(.*)\]$/, "$1"), port: Number(spec.slice(i + 1)) };
};
// IPv4 peers of a dual-stack socket look like ::ffff:192.0.2.1; print them as IPv4.
const plain = (address) => String(address).replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, "$1");
const hostPort = (address, port) => (plain(address).includes(":") ? `[${plain(address)}]:${port}` : `${plain(address)}:${port}`);
const answer = (local, peer) => JSON.stringify({ server: values.label, local, peer }) + "\n";
const closers = [];

function listenHttp(spec) {
  const { address, port } = split(spec);
  const server = createServer((req, res) => {
    const body = answer(hostPort(req.socket.localAddress, req.socket.localPort), hostPort(req.socket.remoteAddress, req.socket.remotePort));
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body), connection: "close" });
    res.end(body);
  });
  closers.push(() => server.close());
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen({ port, host: address, ipv6Only: address.includes(":") }, resolve);
  });
}

function listenUdp(spec) {
  const { address, port } = split(spec);
  const socket = createSocket(address.includes(":") ? { type: "udp6", ipv6Only: true } : "udp4");
  socket.on("message", (_msg, rinfo) => socket.send(answer(hostPort(address, port), hostPort(rinfo.address, rinfo.port)), rinfo.port, rinfo.address));
  closers.push(() => socket.close());
  return new Promise((resolve, reject) => {
    socket.once("error", reject);
    socket.bind(port, address, resolve);
  });
}

function stop() {
  for (const close of closers) close();
  if (values.ready) rmSync(values.ready, { force: true });
  process.exit(0);
}

process.on("SIGTERM", stop);
process.on("SIGINT", stop);
try {
  await Promise.all([...values.http.map(listenHttp), ...values.udp.map(listenUdp)]);
} catch (err) {
  process.stderr.write(`${values.label}: ${err.message}\n`);
  process.exit(1);
}
if (values.ready) writeFileSync(values.ready, `${process.pid}\n`);
process.stdout.write(`${values.label}: listening on ${[...values.http.map((h) => `http ${h}`), ...values.udp.map((u) => `udp ${u}`)].join(", ")}\n`);

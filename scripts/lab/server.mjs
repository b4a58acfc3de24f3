#!/usr/bin/env node
// Tiny lab servers: each HTTP listener answers with JSON naming itself and the peer address it saw, each
// UDP listener echoes the same JSON. That is how the lab proves NAT: the far side reports the source it sees.
// Usage: server.mjs --label NAME --pidfile FILE [--http ADDR:PORT]... [--udp ADDR:PORT]...
// The pid file is written once every listener is bound, so it doubles as a readiness signal.
import { createSocket } from "node:dgram";
import { writeFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: {
    label: { type: "string", default: "lab" },
    pidfile: { type: "string" },
    http: { type: "string", multiple: true, default: [] },
    udp: { type: "string", multiple: true, default: [] },
  },
});

const split = (spec) => {
  const i = spec.lastIndexOf(":");
  return { address: spec.slice(0, i), port: Number(spec.slice(i + 1)) };
};
const answer = (local, peer) => JSON.stringify({ server: values.label, local, peer }) + "\n";
const closers = [];

function listenHttp(spec) {
  const { address, port } = split(spec);
  const server = createServer((req, res) => {
    const body = answer(`${address}:${port}`, `${req.socket.remoteAddress}:${req.socket.remotePort}`);
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body), connection: "close" });
    res.end(body);
  });
  closers.push(() => server.close());
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, address, resolve);
  });
}

function listenUdp(spec) {
  const { address, port } = split(spec);
  const socket = createSocket("udp4");
  socket.on("message", (_msg, rinfo) => socket.send(answer(`${address}:${port}`, `${rinfo.address}:${rinfo.port}`), rinfo.port, rinfo.address));
  closers.push(() => socket.close());
  return new Promise((resolve, reject) => {
    socket.once("error", reject);
    socket.bind(port, address, resolve);
  });
}

function stop() {
  for (const close of closers) close();
  if (values.pidfile) rmSync(values.pidfile, { force: true });
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
if (values.pidfile) writeFileSync(values.pidfile, `${process.pid}\n`);
process.stdout.write(`${values.label}: listening on ${[...values.http.map((h) => `http ${h}`), ...values.udp.map((u) => `udp ${u}`)].join(", ")}\n`);

#!/usr/bin/env node
// Lab client: asks a lab server who answered and which source address it saw, with a hard timeout.
// Usage: probe.mjs http|udp HOST PORT [--source ADDR] [--timeout MS] [--expect-server NAME]
//                  [--expect-local ADDR] [--expect-peer ADDR] [--expect-drop]
//        probe.mjs http HOST PORT --count N [--expect-servers NAME,...]
// Prints who answered and the source it saw; exits 1 on no answer or when an expectation does not hold.
// --count N makes N requests, each on a new connection, and prints how many each server answered;
// --expect-servers then wants every answer from those servers and each of them to answer at least once.
// --expect-drop turns it around: it passes only when nothing answers at all (a firewall dropped the
// packets); an answer, or a refusal (something reached the host), fails it.
import { createSocket } from "node:dgram";
import { request } from "node:http";
import { isIPv6 } from "node:net";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    source: { type: "string" },
    timeout: { type: "string", default: "3000" },
    "expect-server": { type: "string" },
    "expect-local": { type: "string" },
    "expect-peer": { type: "string" },
    "expect-drop": { type: "boolean" },
    count: { type: "string" },
    "expect-servers": { type: "string" },
  },
});
const [proto, host, port] = positionals;
const timeout = Number(values.timeout);
const target = isIPv6(host ?? "") ? `[${host}]:${port}` : `${host}:${port}`;

class NoAnswer extends Error {}

function http() {
  return new Promise((resolve, reject) => {
    const req = request({ host, port: Number(port), path: "/", timeout, agent: false, ...(values.source ? { localAddress: values.source } : {}) }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve(body));
    });
    req.on("timeout", () => req.destroy(new NoAnswer(`no answer from ${target} within ${timeout} ms`)));
    req.on("error", reject);
    req.end();
  });
}

function udp() {
  return new Promise((resolve, reject) => {
    const socket = createSocket(isIPv6(host) ? "udp6" : "udp4");
    const timer = setTimeout(() => {
      socket.close();
      reject(new NoAnswer(`no UDP answer from ${target} within ${timeout} ms`));
    }, timeout);
    socket.on("message", (msg) => {
      clearTimeout(timer);
      socket.close();
      resolve(msg.toString());
    });
    socket.on("error", (err) => {
      clearTimeout(timer);
      reject(err);
    });
    socket.bind(0, values.source, () => socket.send("probe", Number(port), host));
  });
}

if (!["http", "udp"].includes(proto) || !host || !port) {
  process.stderr.write("usage: probe.mjs http|udp HOST PORT [--source ADDR] [--timeout MS] [--expect-server NAME] [--expect-local ADDR] [--expect-peer ADDR] [--expect-drop]\n");
  process.exit(2);
}
// "[2001:db8::1]:80" or "192.0.2.1:80" → the address alone.
const addressOf = (hostPort) => String(hostPort).slice(0, String(hostPort).lastIndexOf(":")).replace(/^\[(.*)\]$/, "$1");

if (values.count) {
  // Sequential, a new connection each: every one is a new choice of backend.
  const counts = new Map();
  for (let i = 0; i < Number(values.count); i++) {
    try {
      const server = JSON.parse(await http()).server;
      counts.set(server, (counts.get(server) ?? 0) + 1);
    } catch (err) {
      process.stderr.write(`request ${i + 1} of ${values.count} to ${target}: ${err.code === "ECONNREFUSED" ? "refused" : err.message}\n`);
      process.exit(1);
    }
  }
  const seen = [...counts.keys()].sort();
  process.stdout.write(`${values.count} connections answered by ${seen.map((s) => `${s} ${counts.get(s)}`).join(", ")}\n`);
  const want = values["expect-servers"]?.split(",").sort();
  if (want && want.join() !== seen.join()) {
    process.stderr.write(`expected answers from exactly ${want.join(", ")}\n`);
    process.exit(1);
  }
  process.exit(0);
}

let reply;
try {
  reply = JSON.parse(await (proto === "http" ? http() : udp()));
} catch (err) {
  if (values["expect-drop"] && err instanceof NoAnswer) {
    process.stdout.write(`no answer from ${target} within ${timeout} ms: dropped\n`);
    process.exit(0);
  }
  const refused = err.code === "ECONNREFUSED" ? `${target} refused the connection (it was not dropped)` : err.message;
  process.stderr.write(`${refused}\n`);
  process.exit(1);
}
if (values["expect-drop"]) {
  process.stderr.write(`${reply.server} at ${reply.local} answered, but should not have been reachable\n`);
  process.exit(1);
}
process.stdout.write(`${reply.server} at ${reply.local} answered; it saw the client as ${reply.peer}\n`);
const wrong = [
  values["expect-server"] && reply.server !== values["expect-server"] ? `expected ${values["expect-server"]} to answer` : "",
  values["expect-local"] && addressOf(reply.local) !== values["expect-local"] ? `expected the answer from ${values["expect-local"]}` : "",
  values["expect-peer"] && addressOf(reply.peer) !== values["expect-peer"] ? `expected the server to see ${values["expect-peer"]}` : "",
].filter(Boolean);
if (wrong.length) {
  process.stderr.write(`${wrong.join("; ")}\n`);
  process.exit(1);
}

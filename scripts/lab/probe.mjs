#!/usr/bin/env node
// Lab client: asks a lab server who answered and which source address it saw, with a hard timeout.
// Usage: probe.mjs http|udp HOST PORT [--source ADDR] [--timeout MS] [--expect-local ADDR] [--expect-peer ADDR]
// Prints who answered and the source it saw; exits 1 on no answer or when an expectation does not hold.
import { createSocket } from "node:dgram";
import { request } from "node:http";
import { parseArgs } from "node:util";

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    source: { type: "string" },
    timeout: { type: "string", default: "3000" },
    "expect-local": { type: "string" },
    "expect-peer": { type: "string" },
  },
});
const [proto, host, port] = positionals;
const timeout = Number(values.timeout);

function http() {
  return new Promise((resolve, reject) => {
    const req = request({ host, port: Number(port), path: "/", timeout, ...(values.source ? { localAddress: values.source } : {}) }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve(body));
    });
    req.on("timeout", () => req.destroy(new Error(`no answer from ${host}:${port} within ${timeout} ms`)));
    req.on("error", reject);
    req.end();
  });
}

function udp() {
  return new Promise((resolve, reject) => {
    const socket = createSocket("udp4");
    const timer = setTimeout(() => {
      socket.close();
      reject(new Error(`no UDP answer from ${host}:${port} within ${timeout} ms`));
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
  process.stderr.write("usage: probe.mjs http|udp HOST PORT [--source ADDR] [--timeout MS] [--expect-local ADDR] [--expect-peer ADDR]\n");
  process.exit(2);
}
const addressOf = (hostPort) => String(hostPort).slice(0, String(hostPort).lastIndexOf(":"));

try {
  const reply = JSON.parse(await (proto === "http" ? http() : udp()));
  process.stdout.write(`${reply.server} at ${reply.local} answered; it saw the client as ${reply.peer}\n`);
  const wrong = [
    values["expect-local"] && addressOf(reply.local) !== values["expect-local"] ? `expected the answer from ${values["expect-local"]}` : "",
    values["expect-peer"] && addressOf(reply.peer) !== values["expect-peer"] ? `expected the server to see ${values["expect-peer"]}` : "",
  ].filter(Boolean);
  if (wrong.length) throw new Error(wrong.join("; "));
} catch (err) {
  process.stderr.write(`${err.message}\n`);
  process.exit(1);
}

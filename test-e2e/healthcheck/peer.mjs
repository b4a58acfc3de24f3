#!/usr/bin/env node
// A probe target run inside an "ISP" namespace by the healthcheck e2e tests:
//   --http PORT          HTTP server answering 200 "<name>" on every path (also the TCP probe's target)
//   --garbage-dns PORT   UDP server answering every datagram with our id, the response bit, then garbage
//   --address ADDR       address the UDP server binds (replies must come from the address the probe asked)
// Prints "ready" once everything listens.
import { createSocket } from "node:dgram";
import { once } from "node:events";
import { createServer } from "node:http";
import { parseArgs } from "node:util";

const { values } = parseArgs({
  options: { name: { type: "string", default: "peer" }, http: { type: "string" }, "garbage-dns": { type: "string" }, address: { type: "string", default: "0.0.0.0" } },
});
const waits = [];
if (values.http) {
  const server = createServer((_req, res) => res.end(values.name)).listen(Number(values.http), "0.0.0.0");
  waits.push(once(server, "listening"));
}
if (values["garbage-dns"]) {
  const udp = createSocket("udp4").bind(Number(values["garbage-dns"]), values.address);
  udp.on("message", (msg, rinfo) => {
    const garbage = Buffer.from([0x81, 0x80, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x03, 0x61, 0xc0, 0x0c, 0xff]);
    udp.send(Buffer.concat([msg.subarray(0, 2), garbage]), rinfo.port, rinfo.address);
  });
  waits.push(once(udp, "listening"));
}
await Promise.all(waits);
process.stdout.write("ready\n");
process.on("SIGTERM", () => process.exit(0));

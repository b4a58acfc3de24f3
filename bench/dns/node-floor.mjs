#!/usr/bin/env node
// The floor of any Node UDP server on this machine: answers each query with its own bytes (QR set, nothing
// looked up), through the same dgram calls routerd-dns-resolver uses. bench/dns/run.mjs runs it as server
// "floor": CPU per answer here is what Node's receive and send paths cost before any DNS work.
// Usage: node bench/dns/node-floor.mjs ADDRESS [PORT]
import { createSocket } from "node:dgram";

const [address, port = "53"] = process.argv.slice(2);
const socket = createSocket({ type: "udp4", lookup: (a, _f, cb) => cb(null, a, 4) });
socket.bind(Number(port), address, () => {
  socket.on("message", (msg, rinfo) => {
    msg[2] |= 0x80;
    socket.send(msg, rinfo.port, rinfo.address);
  });
});
for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => socket.close());

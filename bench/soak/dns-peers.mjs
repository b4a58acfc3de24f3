#!/usr/bin/env node
// The two DNS parties around the soak router's routerd-dns-resolver, each run inside its namespace:
//   dns-peers.mjs upstream ADDRESS    the ISP's resolver: any A question gets 192.0.2.<n> with a 5 s TTL
//   dns-peers.mjs client RESOLVER     a LAN client: 10 questions a second, most for 1,000 different names
//                                     (more than the router's cache holds, so its bound is exercised), some
//                                     for the router's own zone; prints its counts every minute
import { createSocket } from "node:dgram";
import { createRequire } from "node:module";

const require = createRequire(new URL("../../package.json", import.meta.url));
const packet = require("dns-packet");
const [role, address] = process.argv.slice(2);
const NAMES = 1000;

function upstream() {
  const sock = createSocket("udp4");
  sock.on("message", (msg, rinfo) => {
    let q;
    try {
      q = packet.decode(msg);
    } catch {
      return;
    }
    const question = q.questions?.[0];
    if (!question) return;
    const n = [...question.name].reduce((s, c) => (s * 31 + c.charCodeAt(0)) % 254, 0) + 1;
    const answers = question.type === "A" ? [{ type: "A", name: question.name, ttl: 5, data: `192.0.2.${n}` }] : [];
    sock.send(packet.encode({ type: "response", id: q.id, flags: packet.RECURSION_DESIRED | packet.RECURSION_AVAILABLE, questions: q.questions, answers }), rinfo.port, rinfo.address);
  });
  sock.bind(53, address);
}

function client() {
  const sock = createSocket("udp4");
  const counts = { sent: 0, answered: 0, empty: 0 };
  let id = 0;
  sock.on("message", (msg) => {
    try {
      const r = packet.decode(msg);
      if (r.answers?.length) counts.answered++;
      else counts.empty++;
    } catch {
      /* not DNS */
    }
  });
  sock.bind(0, () => {
    setInterval(() => {
      id = (id + 1) % 65536;
      const name = id % 10 === 0 ? "nas.lan" : `h${Math.floor(Math.random() * NAMES)}.example`;
      sock.send(packet.encode({ type: "query", id, flags: packet.RECURSION_DESIRED, questions: [{ type: "A", name }] }), 53, address);
      counts.sent++;
    }, 100);
    setInterval(() => process.stdout.write(`${new Date().toISOString()} ${JSON.stringify(counts)}\n`), 60_000);
  });
}

if (role === "upstream" && address) upstream();
else if (role === "client" && address) client();
else {
  process.stderr.write("usage: dns-peers.mjs upstream ADDRESS | client RESOLVER\n");
  process.exit(2);
}

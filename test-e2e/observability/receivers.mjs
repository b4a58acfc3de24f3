// Receivers for the observability test, run inside the test's namespace: a stand-in for Loki's push API
// (Grafana Loki is not packaged for Debian: Debian's `loki` is an unrelated genetics program) that keeps
// each push with its headers, and syslog listeners on UDP and TCP. Prints {"loki":port,"udp":port,"tcp":port}
// when ready. GET /received returns what came in; the process runs until killed.
import { createSocket } from "node:dgram";
import { createServer } from "node:http";
import { createServer as createTcpServer } from "node:net";

const pushes = [];
const syslog = { udp: [], tcp: [] };

const http = createServer((req, res) => {
  let body = "";
  req.on("data", (c) => (body += c));
  req.on("end", () => {
    if (req.method === "POST" && req.url === "/loki/api/v1/push") {
      try {
        pushes.push({ tenant: req.headers["x-scope-orgid"] ?? null, contentType: req.headers["content-type"], body: JSON.parse(body) });
        res.writeHead(204).end();
      } catch (err) {
        res.writeHead(400).end(String(err));
      }
      return;
    }
    if (req.method === "GET" && req.url === "/received") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ pushes, syslog }));
      return;
    }
    res.writeHead(404).end();
  });
});

const udp = createSocket("udp4");
udp.on("message", (m) => syslog.udp.push(m.toString("utf8")));

// RFC 6587 octet counting: "<len> <msg>" repeated.
const tcp = createTcpServer((sock) => {
  let buf = Buffer.alloc(0);
  sock.on("data", (d) => {
    buf = Buffer.concat([buf, d]);
    for (;;) {
      const sp = buf.indexOf(0x20);
      if (sp < 0) break;
      const len = Number(buf.subarray(0, sp).toString());
      if (buf.length < sp + 1 + len) break;
      syslog.tcp.push(buf.subarray(sp + 1, sp + 1 + len).toString("utf8"));
      buf = buf.subarray(sp + 1 + len);
    }
  });
});

await new Promise((r) => http.listen(0, "127.0.0.1", r));
await new Promise((r) => udp.bind(0, "127.0.0.1", r));
await new Promise((r) => tcp.listen(0, "127.0.0.1", r));
process.stdout.write(JSON.stringify({ loki: http.address().port, udp: udp.address().port, tcp: tcp.address().port }) + "\n");

// An OTLP/HTTP receiver for the tests, run inside the test's namespace (the OpenTelemetry Collector is not
// packaged for Debian): POST /v1/logs, /v1/traces and /v1/metrics with a protobuf body (gzip or not) are
// decoded by otlp-decode.mjs and kept with their headers; anything it cannot decode is answered 400 and
// kept under `errors`. GET /received returns what came in. Prints {"port":N} when ready; runs until killed.
// Usage: node otlp-receiver.mjs [PORT] [CERT KEY]   (with CERT and KEY: HTTPS)
import { readFileSync } from "node:fs";
import { createServer as createHttpServer } from "node:http";
import { createServer as createHttpsServer } from "node:https";
import { gunzipSync } from "node:zlib";
import { decode, REQUEST_TYPES } from "./otlp-decode.mjs";

const received = { logs: [], traces: [], metrics: [], errors: [] };

const [, , portArg, certFile, keyFile] = process.argv;
const tls = certFile && keyFile ? { cert: readFileSync(certFile), key: readFileSync(keyFile) } : undefined;
const handler = (req, res) => {
  const chunks = [];
  req.on("data", (c) => chunks.push(c));
  req.on("end", () => {
    const type = REQUEST_TYPES[req.url];
    if (req.method === "POST" && type) {
      try {
        let body = Buffer.concat(chunks);
        if (req.headers["content-encoding"] === "gzip") body = gunzipSync(body);
        if (req.headers["content-type"] !== "application/x-protobuf") throw new Error(`content-type ${req.headers["content-type"]}`);
        const decoded = decode(type, body);
        received[req.url.slice(4)].push({ headers: { authorization: req.headers.authorization ?? null, "content-type": req.headers["content-type"], "user-agent": req.headers["user-agent"] ?? null }, body: decoded });
        // An empty Export*ServiceResponse: full success.
        res.writeHead(200, { "content-type": "application/x-protobuf" }).end();
      } catch (err) {
        received.errors.push(`${req.url}: ${err.message}`);
        res.writeHead(400).end(String(err.message));
      }
      return;
    }
    if (req.method === "GET" && req.url === "/received") {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(received));
      return;
    }
    res.writeHead(404).end();
  });
};
const server = tls ? createHttpsServer(tls, handler) : createHttpServer(handler);

await new Promise((r) => server.listen(Number(portArg ?? 0), "127.0.0.1", r));
process.stdout.write(JSON.stringify({ port: server.address().port }) + "\n");

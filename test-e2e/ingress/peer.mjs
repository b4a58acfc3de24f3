// Peers for the IngressService namespace test, run with `ip netns exec`:
//   server <address> <port> <name>   answers every connection with "<name>\n", then "<name>:<line>\n" per line
//   connect <host> <port> <count> [source] [timeoutMs]
//                                    opens <count> connections one after another and prints a JSON list of
//                                    the backend names that answered, or "ECONNREFUSED" / "TIMEOUT" / a code
//   hold <host> <port>               one connection kept open: each stdin line is sent, each reply printed
import { connect, createServer } from "node:net";
import { createInterface } from "node:readline";

const [mode, ...args] = process.argv.slice(2);

function firstLine(socket) {
  return new Promise((resolve, reject) => {
    let buf = "";
    socket.setEncoding("utf8");
    socket.on("data", (d) => {
      buf += d;
      const i = buf.indexOf("\n");
      if (i >= 0) resolve(buf.slice(0, i));
    });
    socket.once("error", reject);
    socket.once("close", () => reject(Object.assign(new Error("closed"), { code: "CLOSED" })));
  });
}

if (mode === "server") {
  const [address, port, name] = args;
  createServer((s) => {
    s.on("error", () => undefined); // clients and probes reset connections: that is fine
    s.write(`${name}\n`);
    let buf = "";
    s.setEncoding("utf8");
    s.on("data", (d) => {
      buf += d;
      for (let i = buf.indexOf("\n"); i >= 0; i = buf.indexOf("\n")) {
        s.write(`${name}:${buf.slice(0, i)}\n`);
        buf = buf.slice(i + 1);
      }
    });
  }).listen(Number(port), address);
} else if (mode === "connect") {
  const [host, port, count, source, timeoutMs = "2000"] = args;
  const out = [];
  for (let i = 0; i < Number(count); i++) {
    const socket = connect({ host, port: Number(port), ...(source ? { localAddress: source } : {}) });
    const timer = setTimeout(() => socket.destroy(Object.assign(new Error("timeout"), { code: "TIMEOUT" })), Number(timeoutMs));
    try {
      out.push(await firstLine(socket));
    } catch (err) {
      out.push(err.code ?? String(err));
    } finally {
      clearTimeout(timer);
      socket.destroy();
    }
  }
  process.stdout.write(`${JSON.stringify(out)}\n`);
} else if (mode === "hold") {
  const [host, port] = args;
  const socket = connect({ host, port: Number(port) });
  socket.setEncoding("utf8");
  socket.on("data", (d) => process.stdout.write(d));
  socket.on("error", (err) => process.stdout.write(`ERROR ${err.code}\n`));
  socket.on("close", () => process.exit(0));
  createInterface({ input: process.stdin }).on("line", (line) => socket.write(`${line}\n`));
} else {
  process.stderr.write(`unknown mode ${mode}\n`);
  process.exit(2);
}

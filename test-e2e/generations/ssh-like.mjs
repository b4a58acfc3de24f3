// A stand-in for sshd on the router: accepts TCP connections and greets with an SSH-style banner.
// Usage: node ssh-like.mjs PORT
import { createServer } from "node:net";

const port = Number(process.argv[2] ?? 2222);
createServer((socket) => {
  socket.on("error", () => undefined);
  socket.end("SSH-2.0-routerd-test\r\n");
}).listen(port, "0.0.0.0", () => process.stdout.write("listening\n"));

// The operator's management session, seen from the management network: every 50 ms a new TCP connection
// to the router's SSH port tries to get its banner (attempts overlap, so a dropped SYN does not delay the
// next one). Prints one JSON line per attempt: {"t": ms when it started, "ok": bool}.
// Usage: node probe-loop.mjs HOST PORT
import { connect } from "node:net";

const [host, portText] = process.argv.slice(2);
const port = Number(portText);

function attempt() {
  const t = Date.now();
  const s = connect({ host, port });
  const done = (ok) => {
    clearTimeout(timer);
    s.destroy();
    process.stdout.write(JSON.stringify({ t, ok }) + "\n");
  };
  const timer = setTimeout(() => done(false), 300);
  s.once("data", (b) => done(b.toString().startsWith("SSH-2.0-")));
  s.once("error", () => done(false));
}

setInterval(attempt, 50);

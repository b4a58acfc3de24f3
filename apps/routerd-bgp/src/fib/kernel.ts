// What the kernel holds under routerd-bgp's (protocol, table): read at start and on resync only. Text
// output (`ip -o`) parses several times faster than `ip -j` at 100k routes.
import { spawn } from "node:child_process";
import { parseRouteLine, type FibTarget, type KernelRoute } from "./lines.js";

function run(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("ip", args, { stdio: ["ignore", "pipe", "pipe"] });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on("data", (d: Buffer) => out.push(d));
    child.stderr.on("data", (d: Buffer) => err.push(d));
    child.on("error", reject);
    child.on("close", (code) =>
      code === 0 ? resolve(Buffer.concat(out).toString("utf8")) : reject(new Error(`ip ${args.join(" ")}: ${Buffer.concat(err).toString("utf8").trim() || `exit ${code}`}`)),
    );
  });
}

export async function kernelRoutes(t: FibTarget): Promise<KernelRoute[]> {
  const show = (family: string) => run(["-o", family, "route", "show", "table", String(t.table), "proto", String(t.protocol)]);
  const [v4, v6] = await Promise.all([show("-4"), show("-6")]);
  const out: KernelRoute[] = [];
  for (const [text, isV6] of [[v4, false], [v6, true]] as const) {
    for (const line of text.split("\n")) {
      if (line === "") continue;
      const r = parseRouteLine(line, isV6);
      if (r !== undefined) out.push(r);
    }
  }
  return out;
}

/** Deletes every route carrying this protocol in this table (IPv4 and IPv6), and nothing else. */
export async function flushRoutes(t: Pick<FibTarget, "protocol" | "table">): Promise<void> {
  await run(["-4", "route", "flush", "table", String(t.table), "proto", String(t.protocol)]);
  await run(["-6", "route", "flush", "table", String(t.table), "proto", String(t.protocol)]);
}

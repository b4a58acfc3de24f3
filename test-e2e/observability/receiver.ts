// The observability tests' receivers (receivers.mjs, otlp-receiver.mjs, kafka-receiver.mjs) run in the
// test's namespace, print their ports as one JSON line when ready, and answer GET /received.
import { execFileSync, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import type { Lab } from "../dhcpv4-client/netns.js";

/** Starts `script` (in this directory) in `ns` and waits for its ports line. */
export async function startReceiver<P extends Record<string, number>>(lab: Lab, ns: string, script: string, args: string[] = []): Promise<{ child: ChildProcess; ports: P }> {
  const child = lab.spawn(ns, [process.execPath, join(import.meta.dirname, script), ...args]);
  const line = await new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolve(out.split("\n")[0]!);
    });
    child.once("exit", (code) => reject(new Error(`${script} exited ${code}`)));
  });
  return { child, ports: JSON.parse(line) as P };
}

/** GET `url` from inside `ns` (curl; -k for the HTTPS receiver's test certificate), as JSON. */
export function getJson<T>(ns: string, url: string): T {
  return JSON.parse(execFileSync("ip", ["netns", "exec", ns, "curl", "-sfk", url], { encoding: "utf8", timeout: 10_000 })) as T;
}

/** A span as otlp-decode.mjs gives it (OTLP/JSON field names). */
export interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes?: unknown[];
  status?: { code?: number };
}

// Address-conflict probe before using an offered address (RFC 2131 §4.4.1, RFC 5227 probe).
// An ARP probe needs a packet socket, which Node cannot open without a native addon, so the probe runs
// `arping -D` (iputils) or `busybox arping -D`: ARP requests with sender IP 0.0.0.0 on the interface.
import { execFile } from "node:child_process";

export type ProbeResult = "in-use" | "free" | "unknown";

export interface AddressProber {
  probe(address: string): Promise<ProbeResult>;
}

export interface ArpingOptions {
  ifname: string;
  /** Requests sent, one per second. */
  count?: number;
  /** Overall wait in whole seconds. */
  waitSeconds?: number;
  /** Command candidates, first that exists wins. */
  commands?: ReadonlyArray<ReadonlyArray<string>>;
  onNote?: (note: string) => void;
}

const DEFAULT_COMMANDS: ReadonlyArray<ReadonlyArray<string>> = [["arping"], ["busybox", "arping"]];

/**
 * Reads an arping -D run. Both implementations print "reply from" for each answer; busybox also
 * exits 1 on errors, so the exit code alone cannot tell a conflict from a failure.
 */
export function interpretArping(exitCode: number | null, stdout: string): ProbeResult {
  const replied = /reply from/i.test(stdout);
  if (replied) return "in-use";
  if (exitCode === 0) return "free";
  return "unknown";
}

interface RunResult {
  code: number | null;
  stdout: string;
  missing: boolean;
}

function run(argv: ReadonlyArray<string>, timeoutMs: number): Promise<RunResult> {
  return new Promise((resolve) => {
    const [cmd, ...args] = argv as [string, ...string[]];
    execFile(cmd, args, { timeout: timeoutMs }, (err, stdout) => {
      const e = err as (NodeJS.ErrnoException & { code?: string | number }) | null;
      if (e && e.code === "ENOENT") return resolve({ code: null, stdout: "", missing: true });
      const code = e ? (typeof e.code === "number" ? e.code : null) : 0;
      resolve({ code, stdout: String(stdout), missing: false });
    });
  });
}

export function createArpingProber(opts: ArpingOptions): AddressProber {
  const count = opts.count ?? 2;
  const wait = opts.waitSeconds ?? 2;
  const commands = opts.commands ?? DEFAULT_COMMANDS;
  return {
    async probe(address: string): Promise<ProbeResult> {
      for (const cmd of commands) {
        const r = await run([...cmd, "-D", "-c", String(count), "-w", String(wait), "-I", opts.ifname, address], (wait + 2) * 1000);
        if (r.missing) continue;
        const result = interpretArping(r.code, r.stdout);
        if (result === "unknown") opts.onNote?.(`${cmd.join(" ")} failed (exit ${String(r.code)})`);
        return result;
      }
      opts.onNote?.("no arping command found (install iputils-arping or busybox)");
      return "unknown";
    },
  };
}

// Finding and killing daemons that a test's `routerd serve` supervised (they outlive serve on purpose).
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

export function pidFromFile(path: string): number | undefined {
  try {
    return (JSON.parse(readFileSync(path, "utf8")) as { pid: number }).pid;
  } catch {
    return undefined;
  }
}

/** Every process whose command line mentions `needle` (a test's unique run dir, say). */
export function processesMentioning(needle: string): number[] {
  const out: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(needle)) out.push(Number(entry));
    } catch {
      /* gone */
    }
  }
  return out;
}

export async function killAll(needle: string): Promise<void> {
  for (const pid of processesMentioning(needle)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      /* gone */
    }
  }
  const deadline = Date.now() + 5000;
  while (processesMentioning(needle).length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

export function daemonPid(runDir: string, daemon: string, instance: string): number | undefined {
  const path = join(runDir, daemon, `${instance}.pid`);
  return existsSync(path) ? pidFromFile(path) : undefined;
}

// What a doctor check is and the small helpers they share. Checks read the host; they change nothing.
import { spawnSync } from "node:child_process";

export type Verdict = "ok" | "warn" | "fail";

export interface Finding {
  check: string;
  verdict: Verdict;
  detail: string;
  /** What to do about a warning or failure. */
  advice?: string;
}

export interface DoctorContext {
  stateDir: string;
  runDir: string;
  now: number;
}

export interface DoctorCheck {
  name: string;
  run(ctx: DoctorContext): Promise<Finding[]> | Finding[];
}

export interface Ran {
  /** undefined: the program is not installed (not on PATH). */
  code: number | undefined;
  out: string;
}

export function run(cmd: string, args: string[], input?: string): Ran {
  const r = spawnSync(cmd, args, { encoding: "utf8", input: input ?? "", timeout: 10_000 });
  if ((r.error as NodeJS.ErrnoException | undefined)?.code === "ENOENT") return { code: undefined, out: "" };
  return { code: r.status ?? 1, out: `${r.stdout ?? ""}${r.stderr ?? ""}`.trim() };
}

/** "1.0.6" ≥ "0.9.3". */
export function versionAtLeast(version: string, min: string): boolean {
  const a = version.split(".").map(Number);
  const b = min.split(".").map(Number);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (x !== y) return x > y;
  }
  return true;
}

export const ok = (check: string, detail: string): Finding => ({ check, verdict: "ok", detail });
export const warn = (check: string, detail: string, advice: string): Finding => ({ check, verdict: "warn", detail, advice });
export const fail = (check: string, detail: string, advice: string): Finding => ({ check, verdict: "fail", detail, advice });

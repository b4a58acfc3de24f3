// `routerctl doctor`: every check, in order. A new check is one entry in a list.
import type { DoctorCheck, DoctorContext, Finding } from "./check.js";
import { KERNEL_CHECKS } from "./kernel.js";
import { SYSTEM_CHECKS } from "./system.js";
import { TOOL_CHECKS } from "./tools.js";

export const DOCTOR_CHECKS: readonly DoctorCheck[] = [...TOOL_CHECKS, ...KERNEL_CHECKS, ...SYSTEM_CHECKS];

export async function runDoctor(ctx: DoctorContext, checks: readonly DoctorCheck[] = DOCTOR_CHECKS): Promise<Finding[]> {
  const out: Finding[] = [];
  for (const c of checks) {
    try {
      out.push(...(await c.run(ctx)));
    } catch (err) {
      out.push({ check: c.name, verdict: "fail", detail: `the check itself failed: ${(err as Error).message}`, advice: "report this; the other checks still ran" });
    }
  }
  return out;
}

export function findingsToText(findings: readonly Finding[]): string {
  const width = Math.max(0, ...findings.map((f) => f.check.length));
  const lines = findings.flatMap((f) => [`${f.verdict.toUpperCase().padEnd(5)} ${f.check.padEnd(width)}  ${f.detail}`, ...(f.advice && f.verdict !== "ok" ? [`${" ".repeat(width + 8)}→ ${f.advice}`] : [])]);
  const failed = findings.filter((f) => f.verdict === "fail").length;
  const warned = findings.filter((f) => f.verdict === "warn").length;
  lines.push(failed ? `${failed} problem${failed === 1 ? "" : "s"} to fix${warned ? `, ${warned} warning${warned === 1 ? "" : "s"}` : ""}.` : `Ready for routerd${warned ? ` (${warned} warning${warned === 1 ? "" : "s"})` : ""}.`);
  return lines.join("\n");
}

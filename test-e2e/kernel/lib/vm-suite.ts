// Declares a vitest suite for one scenario set: the VM boots once (in beforeAll), every scenario is its own
// test, and a VM that cannot start fails every scenario with the reason (never a silent skip).
import { fileURLToPath } from "node:url";
import { beforeAll, describe, it } from "vitest";
import { chosenScenarios, type ScenarioSet } from "./scenarios.js";
import { runScenariosInVm, type VmRun } from "./vm.js";

/** Boot, Node's start under emulation (up to ~3 s cold) and shutdown, on top of the scenarios' own bounds. */
const VM_OVERHEAD_MS = 60_000;

function tail(text: string, lines = 40): string {
  return text.trimEnd().split("\n").slice(-lines).join("\n");
}

/** One line per VM: where the time went (boot-to-first-command, each scenario, the whole VM). */
function summary(title: string, run: VmRun): string {
  const boot = run.report ? `first command at ${run.report.uptimeAtStart.toFixed(1)} s of guest uptime, ` : "";
  const each = Object.entries(run.report?.results ?? {}).map(([name, r]) => `${r.ok ? "ok" : "FAIL"} ${(r.ms / 1000).toFixed(1)} s ${name}`);
  return [`kernel-lab ${title}: ${boot}VM wall ${(run.wallMs / 1000).toFixed(1)} s, exit ${run.code}`, ...each.map((l) => `  ${l}`)].join("\n");
}

export function vmSuite(title: string, scenarioModule: URL, set: ScenarioSet): void {
  // ROUTERD_KERNEL_LAB_ONLY="part|part": only the scenarios it names run; vitest shows the rest as skipped.
  const chosen = chosenScenarios(set);
  const budgetMs = VM_OVERHEAD_MS + chosen.reduce((sum, s) => sum + s.timeoutMs, 0);
  describe(`${title} (full kernel)`, () => {
    let run: VmRun = { code: 125, output: "the VM was never started (beforeAll did not finish)", wallMs: 0 };
    beforeAll(async () => {
      if (chosen.length === 0) return;
      run = await runScenariosInVm(fileURLToPath(scenarioModule), { timeoutS: Math.ceil(budgetMs / 1000) });
      process.stderr.write(`${summary(title, run)}\n`);
    }, budgetMs + 30_000);

    for (const scenario of set.scenarios) {
      (chosen.includes(scenario) ? it : it.skip)(scenario.name, () => {
        const result = run.report?.results[scenario.name];
        if (!result) {
          const why = run.code === 0 || run.code === 1 ? `the guest program ended (exit ${run.code}) before this scenario ran` : `the lab VM failed (exit ${run.code})`;
          throw new Error(`${why}; VM output:\n${tail(run.output)}`);
        }
        if (!result.ok) {
          const log = result.log.length ? `\nscenario log:\n${result.log.join("\n")}` : "";
          throw new Error(`${result.error ?? "failed"}${log}\nVM output:\n${tail(run.output)}`);
        }
      });
    }
  });
}

// Scenarios of the full-kernel tier: plain async functions that run inside the lab VM as root (guest.ts runs
// them), declared in a *.scenarios.ts module that the host's *.test.ts imports for their names only.
// They import nothing from vitest: assertions use node:assert, so the guest bundle stays small.

export interface ScenarioContext {
  /** Lines kept with the scenario's result (shown when it fails). */
  log(line: string): void;
}

export interface Scenario {
  name: string;
  /** Upper bound inside the VM; a scenario past it fails and the next one starts. */
  timeoutMs: number;
  run(ctx: ScenarioContext): Promise<void> | void;
}

export interface ScenarioSet {
  scenarios: Scenario[];
}

export function defineScenarios(scenarios: Scenario[]): ScenarioSet {
  const names = new Set<string>();
  for (const s of scenarios) {
    if (names.has(s.name)) throw new Error(`scenario "${s.name}" is declared twice`);
    names.add(s.name);
  }
  return { scenarios };
}

/**
 * A developer's filter (ROUTERD_KERNEL_LAB_ONLY): the scenarios whose name contains one of its
 * `|`-separated parts; all of them without a filter.
 */
export function chosenScenarios(set: ScenarioSet, filter = process.env.ROUTERD_KERNEL_LAB_ONLY): Scenario[] {
  const parts = filter?.split("|").filter(Boolean) ?? [];
  return parts.length ? set.scenarios.filter((s) => parts.some((p) => s.name.includes(p))) : set.scenarios;
}

/** What the guest reports per scenario (results.json in the shared directory). */
export interface ScenarioResult {
  ok: boolean;
  ms: number;
  error?: string;
  log: string[];
}

export interface GuestReport {
  /** Seconds since the guest kernel booted when the first scenario started (boot-to-first-command). */
  uptimeAtStart: number;
  results: Record<string, ScenarioResult>;
}

export const RESULTS_FILE = "results.json";

// Pure helpers for the reconcile benchmark's summary: statistics, targets, state comparison and the table.
export const TARGETS = { firstVsBaseline: 2, noopMs: 1000, rssMiB: 200 };

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

export function stats(xs) {
  return { medianMs: Math.round(median(xs)), minMs: Math.round(Math.min(...xs)), maxMs: Math.round(Math.max(...xs)), runsMs: xs.map(Math.round) };
}

/** Routes, addresses and DNAT rules that only one side has (first three of each), and whether they match. */
export function sameState(routerd, baseline) {
  const diff = (x, y) => {
    const ys = new Set(y);
    return x.filter((l) => !ys.has(l));
  };
  const detail = {};
  for (const k of ["routes", "addresses", "dnat"]) {
    detail[k] = { count: routerd[k].length, onlyRouterd: diff(routerd[k], baseline[k]).slice(0, 3), onlyBaseline: diff(baseline[k], routerd[k]).slice(0, 3) };
  }
  return { equivalent: Object.values(detail).every((v) => !v.onlyRouterd.length && !v.onlyBaseline.length), detail };
}

export function targetsOf({ first, noop, baseline, peakRssMiB, equivalent }) {
  const ratio = median(first) / median(baseline);
  return {
    firstReconcileVsBaseline: { ratio: Math.round(ratio * 100) / 100, target: `≤ ${TARGETS.firstVsBaseline}×`, met: ratio <= TARGETS.firstVsBaseline },
    noopReconcile: { medianMs: Math.round(median(noop)), target: `≤ ${TARGETS.noopMs} ms`, met: median(noop) <= TARGETS.noopMs },
    peakRss: { mib: peakRssMiB, target: `≤ ${TARGETS.rssMiB} MiB`, met: peakRssMiB <= TARGETS.rssMiB },
    sameStateAsBaseline: { met: equivalent },
  };
}

export function formatTable(result) {
  const t = result.targets;
  const met = (x) => (x.met ? "met" : "NOT met");
  const row = (name, s, extra = "") =>
    `| ${name.padEnd(28)} | ${String(s.medianMs).padStart(9)} | ${String(s.minMs).padStart(8)} | ${String(s.maxMs).padStart(8)} | ${extra}`;
  return [
    `| ${"measure".padEnd(28)} | median ms |   min ms |   max ms | target`,
    `|${"-".repeat(30)}|${"-".repeat(11)}|${"-".repeat(10)}|${"-".repeat(10)}|-------`,
    row("baseline ip -batch + nft -f", result.baseline),
    row("first reconcile", result.firstReconcile, `${t.firstReconcileVsBaseline.ratio}× baseline (≤ ${TARGETS.firstVsBaseline}×): ${met(t.firstReconcileVsBaseline)}`),
    row("no-op reconcile", result.noopReconcile, `≤ ${TARGETS.noopMs} ms: ${met(t.noopReconcile)}`),
    row("plan", result.plan),
    ...(result.cleanupReconcile ? [row(`cleanup (${result.size.routes} routes)`, result.cleanupReconcile)] : []),
    `routerd CPU time (user+sys), median: first ${result.routerdCpuMedianMs.first} ms, no-op ${result.routerdCpuMedianMs.noop} ms, plan ${result.routerdCpuMedianMs.plan} ms; load average ${result.machine.loadavgAtStart.join(" ")} at start`,
    `peak RSS of routerd: ${result.peakRssMiB} MiB (≤ ${TARGETS.rssMiB} MiB: ${met(t.peakRss)}; per measure: ${Object.entries(result.peakRssMiBByMeasure ?? {}).map(([k, v]) => `${k} ${v}`).join(", ")}); same kernel state as the baseline: ${t.sameStateAsBaseline.met ? "yes" : "NO"}`,
  ].join("\n");
}

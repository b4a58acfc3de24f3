// Turns samples into the soak verdict: per process the least-squares slope (MB/hour) of RSS, V8 heap used
// and open fds over the samples after the warm-up, with a 95% interval, a text sparkline and an SVG plot.
const MB = 1e6;
const BARS = "▁▂▃▄▅▆▇█";

/** Least squares y = a + b·x; b and its standard error (undefined below 3 points). */
export function fit(xs, ys) {
  const n = xs.length;
  if (n < 3) return undefined;
  const mx = xs.reduce((s, x) => s + x, 0) / n;
  const my = ys.reduce((s, y) => s + y, 0) / n;
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    sxx += (xs[i] - mx) ** 2;
    sxy += (xs[i] - mx) * (ys[i] - my);
  }
  if (sxx === 0) return undefined;
  const slope = sxy / sxx;
  const intercept = my - slope * mx;
  let sse = 0;
  for (let i = 0; i < n; i++) sse += (ys[i] - intercept - slope * xs[i]) ** 2;
  return { slope, intercept, stderr: Math.sqrt(sse / (n - 2) / sxx), n };
}

/** A line of block characters, at most `width` wide (buckets averaged), scaled between min and max. */
export function sparkline(values, width = 60) {
  const vs = values.filter((v) => v !== undefined);
  if (vs.length === 0) return "";
  const buckets = [];
  const per = Math.max(1, Math.ceil(vs.length / width));
  for (let i = 0; i < vs.length; i += per) {
    const chunk = vs.slice(i, i + per);
    buckets.push(chunk.reduce((s, v) => s + v, 0) / chunk.length);
  }
  const lo = Math.min(...buckets);
  const hi = Math.max(...buckets);
  return buckets.map((v) => BARS[hi === lo ? 0 : Math.min(BARS.length - 1, Math.floor(((v - lo) / (hi - lo)) * BARS.length))]).join("");
}

const round = (v, d = 2) => (v === undefined || Number.isNaN(v) ? undefined : Math.round(v * 10 ** d) / 10 ** d);

/** Per process: figures over the whole run and the slopes after `warmupSeconds`. */
export function summarize(samples, warmupSeconds, targetMBPerHour = 1) {
  const byName = new Map();
  for (const s of samples) {
    if (!byName.has(s.name)) byName.set(s.name, []);
    byName.get(s.name).push(s);
  }
  const out = [];
  for (const [name, rows] of byName) {
    const live = rows.filter((r) => !r.missing);
    const after = live.filter((r) => r.t >= warmupSeconds);
    const hours = after.map((r) => r.t / 3600);
    const slopeOf = (key, scale) => {
      const pts = after.filter((r) => r[key] !== undefined && !Number.isNaN(r[key]));
      const f = fit(pts.map((r) => r.t / 3600), pts.map((r) => r[key] / scale));
      return f && { perHour: round(f.slope, 3), ci95: round(1.96 * f.stderr, 3), n: f.n };
    };
    const rss = slopeOf("rss", MB);
    const pids = [...new Set(live.map((r) => r.pid))];
    out.push({
      name,
      samples: live.length,
      restarts: pids.length - 1,
      rssMB: { first: round(live[0]?.rss / MB, 1), atWarmup: round(after[0]?.rss / MB, 1), last: round(live.at(-1)?.rss / MB, 1) },
      heapUsedMB: { atWarmup: round(after.find((r) => r.heapUsed !== undefined)?.heapUsed / MB, 1), last: round(live.findLast((r) => r.heapUsed !== undefined)?.heapUsed / MB, 1) },
      rssMeanMB: after.length ? round(after.reduce((sum, r) => sum + r.rss, 0) / after.length / MB, 1) : undefined,
      // CPU time (user + system) over the whole run and over the measured part: what the process's memory costs.
      cpuSeconds: live.at(-1)?.cpu !== undefined ? { total: round(live.at(-1).cpu, 1), afterWarmup: round(live.at(-1).cpu - (after[0]?.cpu ?? 0), 1) } : undefined,
      fds: { atWarmup: after[0]?.fds, last: live.at(-1)?.fds, min: Math.min(...after.map((r) => r.fds)), max: Math.max(...after.map((r) => r.fds)) },
      slopes: { rssMBPerHour: rss, rssAnonMBPerHour: slopeOf("rssAnon", MB), rssFileMBPerHour: slopeOf("rssFile", MB), heapUsedMBPerHour: slopeOf("heapUsed", MB), mallocMBPerHour: slopeOf("malloc", MB), codeMBPerHour: slopeOf("code", MB), fdsPerHour: slopeOf("fds", 1) },
      meetsTarget: rss ? rss.perHour <= targetMBPerHour : undefined,
      span: hours.length ? { fromMin: round(hours[0] * 60, 1), toMin: round(hours.at(-1) * 60, 1) } : undefined,
      sparkline: { rss: sparkline(live.map((r) => r.rss)), heapUsed: sparkline(live.map((r) => r.heapUsed)) },
      rssRangeMB: live.length ? [round(Math.min(...live.map((r) => r.rss)) / MB, 1), round(Math.max(...live.map((r) => r.rss)) / MB, 1)] : undefined,
    });
  }
  return out;
}

/** Slope (per hour) and 95% interval of `value(row)` over the rows at or after `fromSeconds`. */
function slopeOver(rows, fromSeconds, value) {
  const pts = rows.filter((r) => r.t >= fromSeconds && value(r) !== undefined && !Number.isNaN(value(r)));
  const f = fit(pts.map((r) => r.t / 3600), pts.map(value));
  return f && { perHour: round(f.slope, 3), ci95: round(1.96 * f.stderr, 3), n: f.n };
}

/**
 * --live-heap: per process, the memory still in use after a forced full GC (V8 heap + external, from
 * memprobe.mjs) and its slope after the warm-up. Growth here is memory kept; RSS can rise without it.
 */
export function liveSummary(rows, warmupSeconds) {
  const byName = new Map();
  for (const r of rows) {
    if (!byName.has(r.name)) byName.set(r.name, []);
    byName.get(r.name).push(r);
  }
  return [...byName].map(([name, rs]) => {
    rs.sort((a, b) => a.t - b.t);
    const after = rs.filter((r) => r.t >= warmupSeconds);
    const live = (r) => (r.heapUsed + r.external) / MB;
    return {
      name,
      samples: rs.length,
      liveMB: { atWarmup: round(after[0] && live(after[0]), 2), last: round(rs.at(-1) && live(rs.at(-1)), 2) },
      slopes: { liveMBPerHour: slopeOver(rs, warmupSeconds, live), rssAfterGcMBPerHour: slopeOver(rs, warmupSeconds, (r) => r.rss / MB) },
    };
  });
}

export function textReport(summary, { warmupSeconds, targetMBPerHour = 1, live = undefined }) {
  const lines = [];
  const fmt = (s, unit) => (s ? `${s.perHour >= 0 ? "+" : ""}${s.perHour} ±${s.ci95} ${unit}/h` : "n/a");
  const liveOf = new Map((live ?? []).map((l) => [l.name, l]));
  for (const p of summary) {
    lines.push(`${p.name}${p.restarts ? `  (restarted ${p.restarts}×)` : ""}`);
    lines.push(`  RSS ${p.rssMB.first} → ${p.rssMB.atWarmup} (after warm-up) → ${p.rssMB.last} MB;  slope ${fmt(p.slopes.rssMBPerHour, "MB")}  ${p.meetsTarget === undefined ? "" : p.meetsTarget ? `≤ ${targetMBPerHour} MB/h: yes` : `≤ ${targetMBPerHour} MB/h: NO`}`);
    if (p.cpuSeconds) lines.push(`  mean RSS after warm-up ${p.rssMeanMB} MB;  CPU ${p.cpuSeconds.total} s in all, ${p.cpuSeconds.afterWarmup} s after warm-up`);
    lines.push(`  of which anonymous ${fmt(p.slopes.rssAnonMBPerHour, "MB")}, file-backed (program text) ${fmt(p.slopes.rssFileMBPerHour, "MB")}`);
    if (p.slopes.mallocMBPerHour) lines.push(`  C heap (malloc arenas) ${fmt(p.slopes.mallocMBPerHour, "MB")}, V8 code pages ${fmt(p.slopes.codeMBPerHour, "MB")}`);
    lines.push(`  heap used ${p.heapUsedMB.atWarmup} → ${p.heapUsedMB.last} MB;  slope ${fmt(p.slopes.heapUsedMBPerHour, "MB")}`);
    lines.push(`  fds ${p.fds.atWarmup} → ${p.fds.last} (min ${p.fds.min}, max ${p.fds.max});  slope ${fmt(p.slopes.fdsPerHour, "fds")}`);
    lines.push(`  RSS  ${p.sparkline.rss}  ${p.rssRangeMB?.join("–")} MB`);
    if (p.sparkline.heapUsed) lines.push(`  heap ${p.sparkline.heapUsed}`);
    const l = liveOf.get(p.name);
    if (l) lines.push(`  live after full GC (heap + external) ${l.liveMB.atWarmup} → ${l.liveMB.last} MB;  slope ${fmt(l.slopes.liveMBPerHour, "MB")};  RSS after GC ${fmt(l.slopes.rssAfterGcMBPerHour, "MB")}`);
  }
  lines.unshift(`slopes are least squares over the samples after the ${Math.round(warmupSeconds / 60)}-minute warm-up (±: 95% interval)`);
  return lines.join("\n");
}

/** One panel per process: RSS (solid) and heap used (dashed) in MB against minutes; warm-up shaded; the fit drawn. */
export function svgReport(samples, summary, warmupSeconds) {
  const W = 720;
  const H = 160;
  const pad = { l: 50, r: 10, t: 22, b: 24 };
  const tMax = Math.max(60, ...samples.map((s) => s.t));
  const panels = summary.map((p, i) => {
    const rows = samples.filter((s) => s.name === p.name && !s.missing);
    const ys = rows.flatMap((r) => [r.rss, r.heapUsed].filter((v) => v !== undefined).map((v) => v / MB));
    const lo = Math.floor(Math.min(...ys) - 1);
    const hi = Math.ceil(Math.max(...ys) + 1);
    const x = (t) => pad.l + ((W - pad.l - pad.r) * t) / tMax;
    const y = (v) => pad.t + (H - pad.t - pad.b) * (1 - (v - lo) / (hi - lo));
    const path = (key) => rows.filter((r) => r[key] !== undefined).map((r, k) => `${k ? "L" : "M"}${x(r.t).toFixed(1)},${y(r[key] / MB).toFixed(1)}`).join("");
    const f = fit(rows.filter((r) => r.t >= warmupSeconds).map((r) => r.t / 3600), rows.filter((r) => r.t >= warmupSeconds).map((r) => r.rss / MB));
    const fitLine = f ? `<line x1="${x(warmupSeconds)}" y1="${y(f.intercept + (f.slope * warmupSeconds) / 3600)}" x2="${x(tMax)}" y2="${y(f.intercept + (f.slope * tMax) / 3600)}" stroke="#d62728" stroke-width="1"/>` : "";
    const ticks = [lo, hi].map((v) => `<text x="${pad.l - 4}" y="${y(v) + 4}" text-anchor="end">${v}</text>`).join("");
    return `<g transform="translate(0,${i * H})">
<rect x="${pad.l}" y="${pad.t}" width="${x(Math.min(warmupSeconds, tMax)) - pad.l}" height="${H - pad.t - pad.b}" fill="#eee"/>
<text x="${pad.l}" y="14">${p.name}: RSS ${p.slopes.rssMBPerHour?.perHour ?? "n/a"} MB/h after warm-up (red: fit), heap used dashed</text>
${ticks}<path d="${path("rss")}" fill="none" stroke="#1f77b4"/><path d="${path("heapUsed")}" fill="none" stroke="#2ca02c" stroke-dasharray="4 3"/>${fitLine}
<text x="${W - pad.r}" y="${H - 6}" text-anchor="end">${Math.round(tMax / 60)} min</text></g>`;
  });
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H * panels.length}" font-family="sans-serif" font-size="11">\n${panels.join("\n")}\n</svg>\n`;
}

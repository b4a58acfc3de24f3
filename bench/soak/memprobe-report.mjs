// Reads a memprobe.mjs file and sums it up for the churn benchmarks: each figure one minute in (after
// start-up) and at the end, and the growth between.
import { readFileSync } from "node:fs";

const KEYS = ["rss", "heapUsed", "heapTotal", "external", "arrayBuffers", "rssBefore", "heapUsedBefore"];
const mb = (x) => Math.round((x / 1e6) * 100) / 100;

export function probeGrowth(file, fromMs = 60_000) {
  const rows = readFileSync(file, "utf8").trim().split("\n").map((l) => JSON.parse(l));
  const first = rows.find((r) => r.t >= fromMs) ?? rows[0];
  const last = rows.at(-1);
  const out = { samples: rows.length, load: readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ") };
  for (const k of KEYS) out[k] = { atOneMinute: mb(first[k]), atEnd: mb(last[k]), growth: mb(last[k] - first[k]) };
  return out;
}

/** The options both churn benchmarks take (parseArgs form). */
export const CHURN_OPTIONS = {
  minutes: { type: "string", default: "6" },
  out: { type: "string" },
  // Without forced GCs (memory as V8 leaves it on its own), and extra node/V8 flags for the daemon.
  "no-gc": { type: "boolean", default: false },
  "node-flags": { type: "string", default: "" },
  // NAME=VALUE for the daemon's environment (repeatable), e.g. --env MALLOC_ARENA_MAX=2.
  env: { type: "string", multiple: true, default: [] },
};

const PROBE = new URL("./memprobe.mjs", import.meta.url).pathname;

/** node's arguments before the daemon's program, and the environment memprobe reads, for a probe file. */
export function probed(values, probeFile) {
  return {
    nodeArgs: [...values["node-flags"].split(" ").filter(Boolean), "--expose-gc", "--import", PROBE],
    env: { ...envPairs(values.env), MEMPROBE_OUT: probeFile, MEMPROBE_MS: "5000", MEMPROBE_GC: values["no-gc"] ? "0" : "1" },
  };
}

function envPairs(pairs) {
  return Object.fromEntries(
    pairs.map((p) => {
      const eq = p.indexOf("=");
      if (eq < 1) throw new Error(`--env ${p}: write NAME=VALUE`);
      return [p.slice(0, eq), p.slice(eq + 1)];
    }),
  );
}

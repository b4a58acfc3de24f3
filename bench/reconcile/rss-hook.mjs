// Loaded with `node --import` into the routerd process under test: at exit it writes the process's own
// resource usage to $ROUTERD_BENCH_RSS_FILE as JSON: peak resident set size (getrusage ru_maxrss, KiB) and
// user/system CPU time (µs). Unlike polling /proc it cannot miss a short peak, and unlike /usr/bin/time it
// never reports a child's (ip, nft) peak instead of routerd's. CPU time is less sensitive than wall time
// to other load on the machine.
import { writeFileSync } from "node:fs";

const out = process.env.ROUTERD_BENCH_RSS_FILE;
if (out) {
  process.on("exit", () => {
    const u = process.resourceUsage();
    writeFileSync(out, JSON.stringify({ maxRssKiB: u.maxRSS, userUs: u.userCPUTime, systemUs: u.systemCPUTime }) + "\n");
  });
}

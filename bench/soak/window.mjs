#!/usr/bin/env node
// The soak's verdict over a window of an existing run: `node bench/soak/window.mjs RUN/samples.jsonl --from 10
// --to 40` gives per process the RSS slope (MB/hour, ±95%) over minutes 10–40, the mean RSS, fds, the C heap,
// V8 code and heap-used slopes and the CPU seconds spent in the window, so that two runs of different lengths
// (an arm and a longer control) compare over the same minutes. --json prints the summaries.
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { summarize, textReport } from "./report.mjs";

const { values, positionals } = parseArgs({ allowPositionals: true, options: { from: { type: "string", default: "10" }, to: { type: "string", default: "40" }, json: { type: "boolean", default: false } } });
if (positionals.length !== 1) {
  process.stderr.write("usage: window.mjs SAMPLES.jsonl [--from MIN] [--to MIN] [--json]\n");
  process.exit(2);
}
const from = Number(values.from) * 60;
const to = Number(values.to) * 60;
const samples = readFileSync(positionals[0], "utf8").split("\n").filter(Boolean).map((l) => JSON.parse(l)).filter((r) => r.t <= to);
const summary = summarize(samples, from);
if (values.json) process.stdout.write(JSON.stringify(summary, null, 2) + "\n");
else process.stdout.write(`minutes ${values.from}–${values.to} of ${positionals[0]}\n${textReport(summary, { warmupSeconds: from })}\n`);

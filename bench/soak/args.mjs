// The command line of the soak and churn benchmarks: --help prints the script's header comment (what it
// measures, and its usage); an unknown option is named with the options there are, and exits 2.
import { readFileSync } from "node:fs";
import { basename } from "node:path";
import { parseArgs } from "node:util";

/** A script's leading `//` comment, after any #! line. */
export function headerComment(script) {
  const lines = readFileSync(script, "utf8").split("\n");
  const body = lines[0]?.startsWith("#!") ? lines.slice(1) : lines;
  const end = body.findIndex((l) => !l.startsWith("//"));
  return body.slice(0, end < 0 ? body.length : end).map((l) => l.replace(/^\/\/ ?/, "")).join("\n") + "\n";
}

/** parseArgs over `options` plus --help, for the script at `script` (a path). */
export function benchArgs(options, script) {
  const all = { ...options, help: { type: "boolean", short: "h", default: false } };
  let values;
  try {
    ({ values } = parseArgs({ options: all }));
  } catch (err) {
    process.stderr.write(`${err.message}\noptions: ${Object.keys(all).map((o) => `--${o}`).join(" ")} (${basename(script)} --help explains)\n`);
    process.exit(2);
  }
  if (values.help) {
    process.stdout.write(headerComment(script));
    process.exit(0);
  }
  return values;
}

// `routerd check`: the renderers' output checked by the tools that will consume it, without applying
// anything (`nft -c`, `dnsmasq --test`, sysctl keys that exist). One entry per output kind.
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sysctlPath, upsertBlock, type CommandRunner } from "@routerd/host";
import type { RenderedOutput } from "./outputs.js";

export type CheckStatus = "ok" | "warn" | "fail";

export interface CheckResult {
  check: string;
  subject: string;
  status: CheckStatus;
  detail?: string;
}

interface Checker {
  /** Which rendered outputs it checks. */
  kind: string;
  name: string;
  run(output: RenderedOutput, runner: CommandRunner): Promise<CheckResult[]>;
}

/** A tool that is not installed is a failure with advice, not a crash. */
async function tool(runner: CommandRunner, name: string, args: string[], input?: string): Promise<{ code: number; text: string } | { missing: string }> {
  const r = await runner.run(name, args, input === undefined ? {} : { input });
  if (r.code === 127) return { missing: name }; // the runner's answer for "not found in PATH"
  return { code: r.code, text: (r.stderr || r.stdout).trim() };
}

const INSTALL: Record<string, string> = { nft: "apt install nftables", dnsmasq: "apt install dnsmasq-base" };

function verdict(check: string, subject: string, r: { code: number; text: string } | { missing: string }): CheckResult {
  if ("missing" in r) return { check, subject, status: "fail", detail: `${r.missing} is not installed (${INSTALL[r.missing] ?? `install ${r.missing}`})` };
  return r.code === 0 ? { check, subject, status: "ok" } : { check, subject, status: "fail", detail: r.text };
}

export const CHECKERS: readonly Checker[] = [
  {
    kind: "nft",
    name: "nft -c",
    run: async (o, runner) => [verdict("nft -c", o.name, await tool(runner, "nft", ["-c", "-f", "-"], o.checkInput ?? o.content))],
  },
  {
    kind: "dnsmasq",
    name: "dnsmasq --test",
    async run(o, runner) {
      // The file as it would be after reconcile: the current file (if any) with routerd's block in it.
      const f = o.file!;
      const current = existsSync(f.path) ? readFileSync(f.path, "utf8") : "";
      const dir = mkdtempSync(join(tmpdir(), "routerd-check-"));
      try {
        const candidate = join(dir, "dnsmasq.conf");
        writeFileSync(candidate, upsertBlock(current, f.block, f.content));
        return [verdict("dnsmasq --test", o.name, await tool(runner, "dnsmasq", ["--test", `--conf-file=${candidate}`]))];
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  },
  {
    kind: "sysctl",
    name: "sysctl key",
    async run(o) {
      return o.content
        .split("\n")
        .filter(Boolean)
        .map((line) => {
          const key = line.split(" = ")[0]!;
          if (existsSync(sysctlPath(key))) return { check: "sysctl key", subject: key, status: "ok" as const };
          // Per-interface keys appear with their interface; anything else is a typo or a missing module.
          const perInterface = /^net\.ipv[46]\.conf\.[^.]+\./.test(key) && !/\.(all|default)\./.test(key);
          return { check: "sysctl key", subject: key, status: perInterface ? ("warn" as const) : ("fail" as const), detail: perInterface ? "the interface does not exist yet; the key appears with it" : `${sysctlPath(key)} does not exist (a kernel module not loaded, or a misspelt key)` };
        });
    },
  },
];

export async function runChecks(outputs: readonly RenderedOutput[], runner: CommandRunner): Promise<CheckResult[]> {
  const results: CheckResult[] = [];
  for (const o of outputs) for (const c of CHECKERS.filter((x) => x.kind === o.kind)) results.push(...(await c.run(o, runner)));
  return results;
}

export function checksToText(results: readonly CheckResult[]): string {
  const width = Math.max(0, ...results.map((r) => r.check.length));
  return results.map((r) => `${r.status.toUpperCase().padEnd(5)} ${r.check.padEnd(width)}  ${r.subject}${r.detail ? `: ${r.detail}` : ""}`).join("\n");
}

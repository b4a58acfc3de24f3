// Test namespaces with unique names, removed in every outcome. Tests never touch the host's own network.
import { spawnSync, type SpawnSyncReturns } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const REPO = new URL("../..", import.meta.url).pathname;
export const ROUTERD = join(REPO, "apps/routerd/bin/routerd.js");

export function uniqueName(prefix: string): string {
  // Interface and namespace names stay short: the kernel limits ifnames to 15 characters.
  return `${prefix}-${randomBytes(3).toString("hex")}`;
}

export interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

export function sh(cmd: string, args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv; allowFail?: boolean } = {}): Run {
  const r: SpawnSyncReturns<string> = spawnSync(cmd, args, { encoding: "utf8", input: opts.input ?? "", env: opts.env ?? process.env, maxBuffer: 64 * 1024 * 1024 });
  const out = { code: r.status ?? 1, stdout: r.stdout ?? "", stderr: r.stderr ?? String(r.error ?? "") };
  if (!opts.allowFail && out.code !== 0) throw new Error(`${cmd} ${args.join(" ")} failed (${out.code}): ${out.stderr}`);
  return out;
}

export class Netns {
  private constructor(readonly name: string) {}

  static create(prefix = "rd"): Netns {
    const name = uniqueName(prefix);
    sh("ip", ["netns", "add", name]);
    const ns = new Netns(name);
    ns.ip("link set lo up");
    // No duplicate address detection: "tentative" flags would make snapshots differ from one second to the next.
    ns.exec("sysctl", ["-qw", "net.ipv6.conf.all.accept_dad=0", "net.ipv6.conf.default.accept_dad=0"]);
    return ns;
  }

  exec(cmd: string, args: string[], opts: { input?: string; env?: NodeJS.ProcessEnv; allowFail?: boolean } = {}): Run {
    return sh("ip", ["netns", "exec", this.name, cmd, ...args], opts);
  }

  /** `ip` inside the namespace, arguments split on spaces. */
  ip(args: string, allowFail = false): Run {
    return sh("ip", ["-n", this.name, ...args.split(" ")], { allowFail });
  }

  /** A veth pair inside this namespace; the peer may be moved to another namespace. */
  veth(name: string, peer: string, peerNs?: Netns): void {
    this.ip(`link add ${name} type veth peer name ${peer}`);
    if (peerNs) this.ip(`link set ${peer} netns ${peerNs.name}`);
  }

  destroy(): void {
    sh("ip", ["netns", "del", this.name], { allowFail: true });
  }
}

/** A temp dir for state and root, removed by cleanup(). */
export function tempDir(prefix = "routerd-e2e-"): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface RouterdOptions {
  stateDir: string;
  root: string;
  env?: NodeJS.ProcessEnv;
  input?: string;
}

/** Runs the built routerd CLI inside the namespace with state and root in the test's temp dir. */
export function routerd(ns: Netns, args: string[], opts: RouterdOptions): Run {
  return ns.exec(process.execPath, [ROUTERD, ...args, "--state-dir", opts.stateDir, "--root", opts.root, "--run-dir", join(opts.stateDir, "run")], {
    allowFail: true,
    ...(opts.env ? { env: opts.env } : {}),
  });
}

/** Everything the kernel holds that routerd could touch, as text, for byte-identical comparisons. */
export function snapshot(ns: Netns): string {
  return [
    ns.exec("nft", ["list", "ruleset"]).stdout,
    ns.ip("rule show").stdout,
    ns.ip("route show table all").stdout,
    ns.ip("addr").stdout,
  ].join("\n----\n");
}

/**
 * As snapshot, with the nft ruleset's tables in name order. The kernel lists tables in the order they were
 * created, and replacing one table (its atomic update) moves it to the end: the order records history, not
 * state. Every table's text, every rule, route and address is still compared byte for byte.
 */
export function stateSnapshot(ns: Netns): string {
  const ruleset = ns.exec("nft", ["list", "ruleset"]).stdout;
  const tables = ruleset.split(/\n(?=table )/).map((t) => t.replace(/\n+$/, ""));
  return [tables.sort().join("\n"), ns.ip("rule show").stdout, ns.ip("route show table all").stdout, ns.ip("addr").stdout].join("\n----\n");
}

/**
 * A PATH for "the host lacks these tools": a directory holding links to every program in the normal PATH
 * except `without` (so `ip netns exec` and everything else still work). Remove it with the returned cleanup.
 */
export function pathWithout(without: readonly string[]): { path: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), "routerd-path-"));
  for (const d of (process.env.PATH ?? "").split(":").filter(Boolean)) {
    let names: string[];
    try {
      names = readdirSync(d);
    } catch {
      continue;
    }
    for (const n of names) {
      if (without.includes(n) || existsSync(join(dir, n))) continue;
      try {
        symlinkSync(join(d, n), join(dir, n));
      } catch {
        /* a name that cannot be linked */
      }
    }
  }
  return { path: dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

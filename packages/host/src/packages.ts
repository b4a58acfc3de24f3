// OS packages: which OS the host (root) runs, which packages its package database has installed, and installing
// one (apt, dnf or FreeBSD pkg: package-managers.ts). routerd never uninstalls a package. With a root other
// than /, the manager works on that root (its sources, lists and database), so tests never touch the host's.
import { existsSync, readFileSync } from "node:fs";
import type { Attributes, ObservedArtifact } from "@routerd/resource";
import { rooted, type HostContext } from "./context.js";
import { PACKAGE_MANAGERS, type ManagerName } from "./package-managers.js";

export { parseDpkgQuery } from "./package-managers.js";

export interface HostOs {
  id: string;
  /** ID_LIKE: the distributions this one derives from (ubuntu → debian). */
  like: string[];
}

/** ID and ID_LIKE of <root>/etc/os-release, or undefined when there is none. */
export function readHostOs(ctx: Pick<HostContext, "root">): HostOs | undefined {
  const path = rooted(ctx, "/etc/os-release");
  if (!existsSync(path)) return undefined;
  const fields = new Map<string, string>();
  for (const line of readFileSync(path, "utf8").split("\n")) {
    const m = /^([A-Z_]+)=("?)(.*)\2\s*$/.exec(line.trim());
    if (m) fields.set(m[1]!, m[3]!);
  }
  const id = fields.get("ID");
  return id ? { id, like: (fields.get("ID_LIKE") ?? "").split(/\s+/).filter(Boolean) } : undefined;
}

/** The managers whose database the root has. */
export function managersOf(ctx: Pick<HostContext, "root">): ManagerName[] {
  return (Object.keys(PACKAGE_MANAGERS) as ManagerName[]).filter((m) => existsSync(rooted(ctx, PACKAGE_MANAGERS[m].database)));
}

/** Does the root have a package database routerd can observe packages in (dpkg, rpm or pkg)? */
export function hasPackageDatabase(ctx: Pick<HostContext, "root">): boolean {
  return managersOf(ctx).length > 0;
}

async function run(ctx: HostContext, argv: string[], largeOutput = false): Promise<string> {
  const r = await ctx.runner.run(argv[0]!, argv.slice(1), largeOutput ? { largeOutput } : {});
  if (r.code !== 0) {
    const why = (r.stderr || r.stdout).trim().split("\n").filter((l) => /^(E|W):|error/i.test(l)).join("; ");
    throw new Error(`${argv.join(" ")}: ${why || (r.stderr || r.stdout).trim() || `exit ${r.code}`}`);
  }
  return r.stdout;
}

/** Installed packages of every database the root has, as `package` artifacts (`apt/chrony`, `dnf/chrony`, ...). */
export async function observePackages(ctx: HostContext): Promise<ObservedArtifact[]> {
  const managers = managersOf(ctx);
  if (!managers.length) throw new Error(`no package database under ${ctx.root} (dpkg, rpm or pkg)`);
  const out: ObservedArtifact[] = [];
  for (const m of managers) out.push(...PACKAGE_MANAGERS[m].parse(await run(ctx, PACKAGE_MANAGERS[m].list(ctx.root), true)));
  return out;
}

// The package lists are refreshed once per root, manager and process: a reconcile installing five packages reads them once.
const refreshed = new Set<string>();

export async function installPackage(ctx: HostContext, attrs: Attributes): Promise<void> {
  const manager = String(attrs.manager) as ManagerName;
  const commands = PACKAGE_MANAGERS[manager];
  if (!commands) throw new Error(`unknown package manager ${manager}`);
  const key = `${manager}:${ctx.root}`;
  if (!refreshed.has(key)) {
    await run(ctx, commands.refresh(ctx.root));
    refreshed.add(key);
  }
  try {
    await run(ctx, commands.install(ctx.root, String(attrs.name)));
  } catch (err) {
    // An optional package holds nothing back: the run goes on and the next plan shows it still to install.
    if (attrs.optional !== true) throw err;
  }
}

// OS packages: which OS the host (root) runs, which packages its dpkg database has installed, and installing
// one with apt. routerd never uninstalls a package. With a root other than /, apt and dpkg work on that root
// (its sources, lists, archives and dpkg database), so tests never touch the host's packages.
import { existsSync, readFileSync } from "node:fs";
import { artifactNames, type Attributes, type ObservedArtifact } from "@routerd/resource";
import { rooted, type HostContext } from "./context.js";

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

const DPKG_DB = "/var/lib/dpkg";

/** Does the root have a dpkg database (a Debian-family system routerd can observe packages on)? */
export function hasPackageDatabase(ctx: Pick<HostContext, "root">): boolean {
  return existsSync(rooted(ctx, `${DPKG_DB}/status`));
}

/** Installed packages (dpkg status "ii") of the root's dpkg database, as `package` artifacts. */
export async function observePackages(ctx: HostContext): Promise<ObservedArtifact[]> {
  if (!hasPackageDatabase(ctx)) throw new Error(`no dpkg database at ${rooted(ctx, DPKG_DB)} (packages are observed with dpkg-query on Debian and Ubuntu only)`);
  const r = await ctx.runner.run("dpkg-query", [`--admindir=${rooted(ctx, DPKG_DB)}`, "-W", "-f", "${Package}\\t${db:Status-Abbrev}\\t${Version}\\n"], { largeOutput: true });
  if (r.code !== 0) throw new Error(`dpkg-query: ${r.stderr.trim() || `exit ${r.code}`}`);
  return parseDpkgQuery(r.stdout);
}

export function parseDpkgQuery(text: string): ObservedArtifact[] {
  const out: ObservedArtifact[] = [];
  for (const line of text.split("\n")) {
    const [name, status, version] = line.split("\t");
    // "ii " installed; "rc " removed with its config left, "iU" unpacked only: not installed.
    if (!name || !status?.startsWith("ii")) continue;
    out.push({ kind: "package", name: artifactNames.package("apt", name), attributes: { manager: "apt", name, version: version ?? "" } });
  }
  return out;
}

/** apt options that make apt and dpkg work on the root instead of the running system. */
function aptRootOptions(ctx: HostContext): string[] {
  if (ctx.root === "/" || ctx.root === "") return [];
  const root = ctx.root.replace(/\/$/, "");
  return ["-o", `Dir=${root}`, "-o", `DPkg::Options::=--root=${root}`, "-o", "DPkg::Options::=--force-not-root", "-o", "APT::Sandbox::User=root"];
}

// `apt-get update` once per root and process: a reconcile installing five packages reads the lists once.
const updated = new Set<string>();

async function apt(ctx: HostContext, args: string[]): Promise<void> {
  const r = await ctx.runner.run("env", ["DEBIAN_FRONTEND=noninteractive", "apt-get", "-q", "-y", ...aptRootOptions(ctx), ...args]);
  if (r.code !== 0) {
    const why = (r.stderr || r.stdout).trim().split("\n").filter((l) => /^(E|W):/.test(l)).join("; ");
    throw new Error(`apt-get ${args.join(" ")}: ${why || `exit ${r.code}`}`);
  }
}

export async function installPackage(ctx: HostContext, attrs: Attributes): Promise<void> {
  const manager = String(attrs.manager);
  const name = String(attrs.name);
  if (manager !== "apt") throw new Error(`${manager} install ${name}: only apt is implemented in this version (install it by hand)`);
  if (!updated.has(ctx.root)) {
    await apt(ctx, ["update"]);
    updated.add(ctx.root);
  }
  await apt(ctx, ["install", "--no-install-recommends", name]);
}

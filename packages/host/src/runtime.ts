// The derived host runtime on a real host: kernel modules (observed in /proc/modules, /sys/module and
// modules.builtin; loaded with modprobe, never unloaded: rmmod of a link driver deletes every link of its
// type in every namespace) and
// whole drop-in files for systemd-networkd and systemd-resolved (under --root; the services are told only
// when routerd manages the real root).
import { existsSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import { release } from "node:os";
import { join } from "node:path";
import { artifactNames, isRouterdDropin, writeFileAtomic, type Attributes, type ObservedArtifact } from "@routerd/resource";
import { rooted, type HostContext } from "./context.js";

/** Where the kernel says what it has; a test may point these elsewhere. */
export interface ModuleSources {
  procModules: string;
  sysModule: string;
  builtin: string;
}

export const MODULE_SOURCES: ModuleSources = {
  procModules: "/proc/modules",
  sysModule: "/sys/module",
  builtin: `/lib/modules/${release()}/modules.builtin`,
};

/** A kernel that loads modules at all: elsewhere everything is built in or missing, and nothing is derived. */
export function hasModuleSupport(sources: ModuleSources = MODULE_SOURCES): boolean {
  return existsSync(sources.procModules);
}

export interface LoadedModule {
  module: string;
  /** How many users the kernel counts (other modules, devices, tables). */
  refcount: number;
  holders: string[];
}

/** Parses /proc/modules: `name size refcount holders, state address`. */
export function parseProcModules(text: string): LoadedModule[] {
  return text
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => {
      const [module = "", , refcount = "0", holders = "-"] = l.split(/\s+/);
      return { module, refcount: Number(refcount), holders: holders === "-" ? [] : holders.split(",").filter(Boolean) };
    });
}

/** A module's name from its path (`kernel/net/ipv4/ip_tunnel.ko`): the file's, with underscores. */
const moduleOfPath = (path: string) => artifactNames.kernelModule(path.trim().split("/").pop()!.replace(/\.ko(\.[a-z]+)?$/, ""));

/** modules.builtin lists paths (`kernel/net/ipv4/ip_tunnel.ko`); the module name is the file's, with underscores. */
export function parseBuiltin(text: string): Set<string> {
  return new Set(
    text
      .split("\n")
      .filter((l) => l.trim())
      .map(moduleOfPath),
  );
}

/** modules.dep: `path: dependency paths` per module the kernel can load from disk. */
export function parseModulesDep(text: string): Set<string> {
  return new Set(
    text
      .split("\n")
      .filter((l) => l.includes(":"))
      .map((l) => moduleOfPath(l.slice(0, l.indexOf(":")))),
  );
}

/** How modules.dep is read; a test counts the reads. */
export interface ModulesDepIo {
  /** The file's identity now, or undefined when there is none (a kernel without /lib/modules). */
  stat(path: string): { mtimeMs: number; size: number } | undefined;
  read(path: string): string;
}

const MODULES_DEP_IO: ModulesDepIo = {
  stat: (path) => {
    const s = statSync(path, { throwIfNoEntry: false });
    return s ? { mtimeMs: s.mtimeMs, size: s.size } : undefined;
  },
  read: (path) => readFileSync(path, "utf8"),
};

/**
 * modules.dep (~0.5 MB on Debian) parsed once per process and file version: every serve cycle with an optional
 * module asks, and the file changes only when modules are installed (a kernel upgrade, depmod). Keyed by path,
 * re-read when its mtime or size differ from the cached read.
 */
const modulesDepCache = new Map<string, { mtimeMs: number; size: number; names: Set<string> }>();

/**
 * Whether this kernel can load a module from disk (it is in modules.dep). Not being loaded (/proc/modules)
 * says nothing about that; an optional module the host has is loaded like a required one. The file is looked at
 * (stat) at most once per returned function, i.e. once per plan, and re-read only when it changed.
 */
export function loadableKernelModules(modulesDep = `/lib/modules/${release()}/modules.dep`, io: ModulesDepIo = MODULES_DEP_IO): (module: string) => boolean {
  let names: Set<string> | undefined;
  const current = (): Set<string> => {
    const id = io.stat(modulesDep);
    if (!id) {
      modulesDepCache.delete(modulesDep);
      return new Set();
    }
    const cached = modulesDepCache.get(modulesDep);
    if (cached && cached.mtimeMs === id.mtimeMs && cached.size === id.size) return cached.names;
    const parsed = parseModulesDep(io.read(modulesDep));
    modulesDepCache.set(modulesDep, { ...id, names: parsed });
    return parsed;
  };
  return (module) => (names ??= current()).has(artifactNames.kernelModule(module));
}

/** Every module the kernel has now: loaded ones with their users, built-in ones as such. */
export function observeKernelModules(sources: ModuleSources = MODULE_SOURCES): ObservedArtifact[] {
  if (!hasModuleSupport(sources)) return [];
  const out = new Map<string, ObservedArtifact>();
  for (const m of parseProcModules(readFileSync(sources.procModules, "utf8"))) {
    out.set(m.module, { kind: "linux.kernelModule", name: m.module, attributes: { module: m.module, state: "loaded", refcount: m.refcount, holders: m.holders } });
  }
  const builtin = existsSync(sources.builtin) ? parseBuiltin(readFileSync(sources.builtin, "utf8")) : new Set<string>();
  // /sys/module also lists built-in code with parameters; without modules.builtin that is all we know of them.
  if (existsSync(sources.sysModule)) for (const m of readdirSync(sources.sysModule)) if (!out.has(m) && !existsSync(join(sources.sysModule, m, "initstate"))) builtin.add(m);
  for (const m of builtin) if (!out.has(m)) out.set(m, { kind: "linux.kernelModule", name: m, attributes: { module: m, state: "builtin" } });
  return [...out.values()];
}

/**
 * modprobe. A required module that does not load fails the step. An optional one (wireguard under backend auto)
 * holds nothing back: when the kernel does not have it loaded afterwards (/proc/modules), the step succeeds with
 * a warning saying why, and the caller records nothing for it (it is not on the host).
 */
export async function loadKernelModule(ctx: HostContext, attrs: Attributes, procModules = MODULE_SOURCES.procModules): Promise<void | { warning: string }> {
  const module = String(attrs.module);
  const r = await ctx.runner.run("modprobe", ["--", module]);
  if (r.code === 0) return;
  const why = `modprobe ${module}: ${(r.stderr || r.stdout).trim() || `exit ${r.code}`}`;
  if (attrs.optional !== true) throw new Error(why);
  // Loaded after all (by someone else meanwhile): then it is there, and the re-observation records it.
  const loaded = existsSync(procModules) && parseProcModules(readFileSync(procModules, "utf8")).some((m) => m.module === artifactNames.kernelModule(module));
  if (loaded) return;
  return { warning: `optional module not loaded (${why}); not recorded, tried again on the next run` };
}

/** Which of the host services that get drop-ins the host uses: enabled (a .wants link) or running. */
export function detectHostServices(ctx: Pick<HostContext, "root">): { networkd: boolean; resolved: boolean } {
  const enabled = (unit: string) => {
    const dir = rooted(ctx, "/etc/systemd/system");
    if (!existsSync(dir)) return false;
    // The link itself is the enablement; its target is a path on the real root, not under a test root.
    return readdirSync(dir).some((d) => d.endsWith(".wants") && readdirSync(join(dir, d)).includes(unit));
  };
  return {
    networkd: enabled("systemd-networkd.service") || existsSync(rooted(ctx, "/run/systemd/netif")),
    resolved: enabled("systemd-resolved.service") || existsSync(rooted(ctx, "/run/systemd/resolve")),
  };
}

export function observeDropins(ctx: HostContext, paths: Iterable<string>): ObservedArtifact[] {
  const out: ObservedArtifact[] = [];
  for (const path of paths) {
    const file = rooted(ctx, path);
    if (existsSync(file)) out.push({ kind: "systemd.dropin", name: artifactNames.dropin(path), attributes: { path, content: readFileSync(file, "utf8") } });
  }
  return out;
}

/** How each service takes a changed drop-in (only on the real root: a test root has no services). */
const RELOAD: Record<string, string[][]> = {
  "systemd-networkd": [["networkctl", "reload"]],
  "systemd-resolved": [["systemctl", "try-restart", "systemd-resolved.service"]],
};

async function tell(ctx: HostContext, service: unknown): Promise<void> {
  if (ctx.root !== "/" && ctx.root !== "") return;
  for (const [cmd, ...args] of RELOAD[String(service)] ?? []) {
    const r = await ctx.runner.run(cmd!, args);
    if (r.code !== 0) throw new Error(`the drop-in was written, but ${cmd} ${args.join(" ")} failed: ${(r.stderr || r.stdout).trim()}`);
  }
}

export async function writeDropin(ctx: HostContext, attrs: Attributes): Promise<void> {
  const path = String(attrs.path);
  if (!isRouterdDropin(path)) throw new Error(`refusing to write ${path}: not one of routerd's drop-in names`);
  const file = rooted(ctx, path);
  const content = String(attrs.content);
  if (existsSync(file) && readFileSync(file, "utf8") === content) return;
  writeFileAtomic(file, content, 0o644);
  await tell(ctx, attrs.service);
}

export async function removeDropin(ctx: HostContext, attrs: Attributes): Promise<void> {
  const path = String(attrs.path);
  if (!isRouterdDropin(path)) throw new Error(`refusing to remove ${path}: not one of routerd's drop-in names`);
  const file = rooted(ctx, path);
  if (!existsSync(file)) return;
  rmSync(file);
  await tell(ctx, attrs.service);
}

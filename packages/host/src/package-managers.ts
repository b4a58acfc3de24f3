// The package managers routerd drives, as data: where each keeps its database under a root, how to list what
// is installed, and how to install one package there. apt runs here (Debian); dnf and FreeBSD's pkg are
// derived the same way (golden-tested command lines) but never run on the test machines.
import { artifactNames, type ObservedArtifact } from "@routerd/resource";

export type ManagerName = "apt" | "dnf" | "pkg";

export interface PackageManagerCommands {
  /** Its installed-package database: a root that has it is observed with this manager. */
  database: string;
  /** argv listing installed packages as `name<TAB>version` lines (apt: dpkg-query's own form). */
  list(root: string): string[];
  parse(text: string): ObservedArtifact[];
  /** Run once per root and process before the first install (refresh the package lists). */
  refresh(root: string): string[];
  install(root: string, name: string): string[];
}

const isReal = (root: string) => root === "/" || root === "";
const bare = (root: string) => root.replace(/\/$/, "");

/** apt options that make apt and dpkg work on the root instead of the running system. */
function aptRoot(root: string): string[] {
  if (isReal(root)) return [];
  const r = bare(root);
  return ["-o", `Dir=${r}`, "-o", `DPkg::Options::=--root=${r}`, "-o", "DPkg::Options::=--force-not-root", "-o", "APT::Sandbox::User=root"];
}

const aptGet = (root: string, args: string[]) => ["env", "DEBIAN_FRONTEND=noninteractive", "apt-get", "-q", "-y", ...aptRoot(root), ...args];

/** `name<TAB>version` lines; one artifact per installed package. */
function nameVersionLines(manager: ManagerName, text: string): ObservedArtifact[] {
  return text
    .split("\n")
    .map((l) => l.split("\t"))
    .filter(([name]) => name)
    .map(([name, version]) => ({ kind: "package", name: artifactNames.package(manager, name!), attributes: { manager, name: name!, version: version ?? "" } }));
}

export function parseDpkgQuery(text: string): ObservedArtifact[] {
  // "ii " installed; "rc " removed with its config left, "iU" unpacked only: not installed.
  const installed = text
    .split("\n")
    .map((l) => l.split("\t"))
    .filter(([name, status]) => name && status?.startsWith("ii"))
    .map(([name, , version]) => `${name}\t${version ?? ""}`);
  return nameVersionLines("apt", installed.join("\n"));
}

export const PACKAGE_MANAGERS: Record<ManagerName, PackageManagerCommands> = {
  apt: {
    database: "/var/lib/dpkg/status",
    list: (root) => ["dpkg-query", `--admindir=${isReal(root) ? "" : bare(root)}/var/lib/dpkg`, "-W", "-f", "${Package}\\t${db:Status-Abbrev}\\t${Version}\\n"],
    parse: parseDpkgQuery,
    refresh: (root) => aptGet(root, ["update"]),
    install: (root, name) => aptGet(root, ["install", "--no-install-recommends", name]),
  },
  dnf: {
    database: "/var/lib/rpm",
    list: (root) => ["rpm", ...(isReal(root) ? [] : [`--root=${bare(root)}`]), "-qa", "--queryformat", "%{NAME}\\t%{VERSION}-%{RELEASE}\\n"],
    parse: (text) => nameVersionLines("dnf", text),
    refresh: (root) => ["dnf", "-y", "-q", ...(isReal(root) ? [] : [`--installroot=${bare(root)}`]), "makecache"],
    install: (root, name) => ["dnf", "-y", "-q", ...(isReal(root) ? [] : [`--installroot=${bare(root)}`]), "--setopt=install_weak_deps=False", "install", name],
  },
  pkg: {
    database: "/var/db/pkg/local.sqlite",
    list: (root) => ["pkg", ...(isReal(root) ? [] : ["--rootdir", bare(root)]), "query", "%n\\t%v"],
    parse: (text) => nameVersionLines("pkg", text),
    refresh: (root) => ["env", "ASSUME_ALWAYS_YES=yes", "pkg", ...(isReal(root) ? [] : ["--rootdir", bare(root)]), "update"],
    install: (root, name) => ["env", "ASSUME_ALWAYS_YES=yes", "pkg", ...(isReal(root) ? [] : ["--rootdir", bare(root)]), "install", "-y", name],
  },
};

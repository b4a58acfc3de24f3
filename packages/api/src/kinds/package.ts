// OS packages the router needs. routerd installs what a Package lists (and, with `reconcile
// --install-packages`, what the config itself needs: derived-packages.ts); it never uninstalls anything.
import { artifactNames, type ArtifactIntent } from "@routerd/resource";
import { API_GROUPS, defineKind } from "../kind.js";
import { t, type Infer } from "../schema.js";

export const PACKAGE_OSES = ["ubuntu", "debian", "fedora", "rhel", "rocky", "almalinux", "freebsd"] as const;
export const PACKAGE_MANAGERS = ["apt", "dnf", "pkg"] as const;
export type PackageManager = (typeof PACKAGE_MANAGERS)[number];

/** The manager an OS uses when an entry does not say. */
export const DEFAULT_MANAGER: Record<(typeof PACKAGE_OSES)[number], PackageManager> = {
  ubuntu: "apt",
  debian: "apt",
  fedora: "dnf",
  rhel: "dnf",
  rocky: "dnf",
  almalinux: "dnf",
  freebsd: "pkg",
};

const packageName = () => t.string({ pattern: /^[a-z0-9][a-z0-9+.@_-]*$/, patternHint: "a package name like chrony or wireguard-tools" });

export const packageSpec = t.object({
  packages: t.array(
    t.object({
      os: t.enum(...PACKAGE_OSES).describe("the OS this entry is for (matched against ID and ID_LIKE in /etc/os-release)"),
      manager: t.optional(t.enum(...PACKAGE_MANAGERS).describe("default: apt on Debian/Ubuntu, dnf on Fedora/RHEL, pkg on FreeBSD")),
      names: t.array(packageName(), { minItems: 1, unique: true }),
      optional: t.withDefault(t.bool().describe("true: a failed install is reported, nothing waits for it"), false),
    }),
    { minItems: 1 },
  ),
  state: t.withDefault(t.enum("present").describe("only present: routerd never uninstalls packages"), "present"),
});

export type PackageSpec = Infer<typeof packageSpec>;

/**
 * One `package` intent per name. `os` and `optional` are not compared with the host: the core keeps only the
 * entries for the host's OS and merges `optional` over every resource that wants the package.
 */
export function packageIntent(owner: string, entry: { os: readonly string[]; manager: PackageManager; name: string; optional: boolean }, action: "ensure" | "observe"): ArtifactIntent {
  return {
    kind: "package",
    name: artifactNames.package(entry.manager, entry.name),
    owner,
    action,
    applyWith: "package",
    attributes: { manager: entry.manager, name: entry.name, os: [...entry.os], optional: entry.optional },
  };
}

export const packageKind = defineKind<PackageSpec>({
  apiVersion: API_GROUPS.system,
  kind: "Package",
  description: "OS packages to install (apt on Debian/Ubuntu, dnf on Fedora/RHEL, pkg on FreeBSD; never uninstalled). Packages the config itself needs are derived and shown by plan.",
  class: "system",
  contract: { type: "ArtifactKinds", artifactKinds: ["package"] },
  supportsWhen: true,
  spec: packageSpec,
  status: (res) => ({ fields: { packages: res.spec.packages.flatMap((p) => p.names), dryRun: false } }),
  provides: { packages: "stringList", dryRun: "bool" },
  check(res, ctx) {
    res.spec.packages.forEach((p, i) => {
      if (p.manager === "pkg" && p.os !== "freebsd") ctx.error(["packages", i, "manager"], `pkg is FreeBSD's package manager, not ${p.os}'s`, `manager: ${DEFAULT_MANAGER[p.os]}`);
    });
  },
  intents: (res) =>
    res.spec.packages.flatMap((p) => p.names.map((name) => packageIntent(res.owner, { os: [p.os], manager: p.manager ?? DEFAULT_MANAGER[p.os], name, optional: p.optional }, "ensure"))),
});

// Packages in the plan: derived from the config's kinds, only for the host's OS, observed unless routerd may
// install them, and a missing required one makes its resource wait (Pending) instead of failing half-way.
import { derivedPackageIntents, loadConfig, type Resource } from "@routerd/api";
import { Ledger, knownKind, unknownKind, type Inventory, type ObservedArtifact } from "@routerd/resource";
import { describe, expect, it } from "vitest";
import { computeDesired } from "./desired.js";
import { plan } from "./plan.js";

const CONFIG = `apiVersion: routerd.net/v1alpha1
kind: Router
metadata: { name: r }
spec:
  resources:
    - apiVersion: system.routerd.net/v1alpha1
      kind: NTPClient
      metadata: { name: time }
      spec: { provider: chrony, servers: [192.0.2.123] }
    - apiVersion: system.routerd.net/v1alpha1
      kind: Package
      metadata: { name: tools }
      spec:
        packages:
          - { os: debian, names: [tcpdump] }
          - { os: freebsd, names: [tcpdump] }
`;

const DEBIAN = { id: "debian", like: [] };
const installed = (...names: string[]): ObservedArtifact[] => names.map((name) => ({ kind: "package", name: `apt/${name}`, attributes: { manager: "apt", name, version: "1" } }));

function run(opts: { packages?: { os?: typeof DEBIAN; managers?: string[]; install: boolean }; inventory?: Inventory }) {
  const config = loadConfig(CONFIG, "r.yaml").config!;
  const desired = computeDesired({ config, when: new Map(), stateDir: "/tmp/none", ...(opts.packages ? { packages: opts.packages } : {}) });
  const inventory: Inventory = opts.inventory ?? new Map([["package", knownKind([])], ["file", knownKind([])]]);
  return { desired, plan: plan({ desired, inventory, ledger: new Ledger(), statuses: new Map(), allowEmpty: false }) };
}

describe("packages in the plan", () => {
  it("derives the provider's package for an NTPClient and keeps only the host OS's Package entries", () => {
    const { desired } = run({ packages: { os: DEBIAN, install: false } });
    const pkgs = desired.desired.filter((d) => d.kind === "package").map((d) => `${d.name} ${d.action} ${d.owners.map((o) => o.split("/").slice(-2).join("/")).join(",")}`);
    expect(pkgs).toEqual(["apt/chrony observe NTPClient/time", "apt/tcpdump ensure Package/tools"]);
  });

  it("derives nothing without a package database, and keeps every OS's entries when the OS is unknown", () => {
    expect(run({}).desired.desired.filter((d) => d.kind === "package").map((d) => d.name)).toEqual(["apt/tcpdump", "pkg/tcpdump"]);
    expect(run({ packages: { install: false } }).desired.desired.filter((d) => d.kind === "package").map((d) => d.name).sort()).toEqual(["apt/chrony", "apt/tcpdump", "dnf/chrony", "pkg/chrony", "pkg/tcpdump"]);
    // The OS unknown but the root has only a dpkg database: only apt names are planned.
    expect(run({ packages: { managers: ["apt"], install: false } }).desired.desired.filter((d) => d.kind === "package").map((d) => d.name).sort()).toEqual(["apt/chrony", "apt/tcpdump"]);
  });

  it("derives the Fedora (dnf) and FreeBSD (pkg) names on those hosts", () => {
    const names = (os: typeof DEBIAN, managers: string[]) => run({ packages: { os, managers, install: false } }).desired.desired.filter((d) => d.kind === "package").map((d) => d.name);
    expect(names({ id: "rocky", like: ["rhel", "centos", "fedora"] }, ["dnf"])).toEqual(["dnf/chrony"]);
    expect(names({ id: "freebsd", like: [] }, ["pkg"]).sort()).toEqual(["pkg/chrony", "pkg/tcpdump"]);
  });

  it("a missing derived package makes its resource Pending; nothing of it is applied; the Package installs its own", () => {
    const { plan: p } = run({ packages: { os: DEBIAN, install: false } });
    const ntp = p.resources.find((r) => r.id === "NTPClient/time")!;
    expect(ntp).toMatchObject({ state: "pending", missingPackages: ["chrony"], reason: expect.stringMatching(/^waiting for package chrony \(install with routerd reconcile --once --install-packages/) });
    expect(ntp.artifacts.find((a) => a.kind === "file")).toMatchObject({ change: "unknown" });
    expect(p.steps.map((s) => `${s.kind} ${s.name}`)).toEqual(["package apt/tcpdump"]);
  });

  it("with --install-packages the derived package is installed and the resource goes ahead", () => {
    const { plan: p } = run({ packages: { os: DEBIAN, install: true } });
    expect(p.resources.find((r) => r.id === "NTPClient/time")!.state).toBe("active");
    expect(p.steps.map((s) => `${s.kind} ${s.name}`).sort()).toEqual(["file /etc/chrony/sources.d/routerd.sources#ntp-time", "package apt/chrony", "package apt/tcpdump"]);
  });

  it("an installed package satisfies it; unknown package state holds nothing", () => {
    const inventory: Inventory = new Map([["package", knownKind(installed("chrony", "tcpdump"))], ["file", knownKind([])]]);
    const ok = run({ packages: { os: DEBIAN, install: false }, inventory }).plan;
    expect(ok.resources.find((r) => r.id === "NTPClient/time")!.state).toBe("active");
    expect(ok.steps.map((s) => s.kind)).toEqual(["file"]);
    const unknown = run({ packages: { os: DEBIAN, install: false }, inventory: new Map([["package", unknownKind("no dpkg")], ["file", knownKind([])]]) }).plan;
    expect(unknown.resources.find((r) => r.id === "NTPClient/time")!.state).toBe("active");
  });

  it("an optional Package entry is installed like any other (optional only means nothing waits for it); an optional derived one never unasked", () => {
    const config = loadConfig(CONFIG.replace("- { os: debian, names: [tcpdump] }", "- { os: debian, names: [tcpdump] }\n          - { os: debian, names: [mtr-tiny], optional: true }"), "r.yaml").config!;
    const desired = computeDesired({ config, when: new Map(), stateDir: "/tmp/none", packages: { os: DEBIAN, install: false } });
    const p = plan({ desired, inventory: new Map([["package", knownKind([])], ["file", knownKind([])]]), ledger: new Ledger(), statuses: new Map(), allowEmpty: false });
    expect(p.steps.map((s) => `${s.kind} ${s.name}`)).toEqual(["package apt/mtr-tiny", "package apt/tcpdump"]);
    expect(p.resources.find((r) => r.id === "Package/tools")!.state).toBe("active");
    // wireguard-go beside backend auto: observed even with --install-packages, and missing it holds nothing.
    const wg = { apiVersion: "net.routerd.net/v1alpha1", kind: "WireGuardInterface", owner: "o", metadata: { name: "wg" }, spec: { backend: "auto" } } as unknown as Resource;
    expect(derivedPackageIntents(wg, true).filter((i) => i.attributes.manager === "apt").map((i) => `${i.name} ${i.action}`)).toEqual(["apt/wireguard-tools ensure", "apt/wireguard-go observe"]);
  });
});

// The packages routerd derives per kind, per OS family (golden: testdata/derived-packages.txt; regenerate
// with ROUTERD_UPDATE_GOLDEN=1 after a deliberate change and review the diff).
import { readFileSync, writeFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PACKAGE_FAMILIES, PACKAGE_NAMES, derivedPackageIntents } from "./derived-packages.js";
import type { Resource } from "./kind.js";

const GOLDEN = new URL("testdata/derived-packages.txt", import.meta.url).pathname;

const SAMPLES: { kind: string; spec: Record<string, unknown>; label?: string }[] = [
  { kind: "WireGuardInterface", spec: { backend: "auto" }, label: "backend auto" },
  { kind: "WireGuardInterface", spec: { backend: "kernel" }, label: "backend kernel" },
  { kind: "WireGuardInterface", spec: { backend: "wireguard-go" }, label: "backend wireguard-go" },
  { kind: "NTPClient", spec: { provider: "chrony" }, label: "chrony" },
  { kind: "NTPClient", spec: { provider: "systemd-timesyncd" }, label: "systemd-timesyncd" },
  { kind: "NTPClient", spec: { provider: "ntpd" }, label: "ntpd" },
  ...["DHCPv4Server", "DHCPv4Reservation", "DHCPv6Server", "DHCPv6Information", "IPv6RouterAdvertisement", "BGPRouter"].map((kind) => ({ kind, spec: {} })),
  ...["FirewallZone", "FirewallPolicy", "FirewallRule", "NAT44Rule", "PortForward", "IngressService", "EgressRoutePolicy"].map((kind) => ({ kind, spec: {} })),
  { kind: "Interface", spec: {} },
];

function table(): string {
  const lines = ["# kind (sample)  family/manager: packages (? = optional; - = none there)"];
  for (const s of SAMPLES) {
    const res = { kind: s.kind, owner: `x/${s.kind}/a`, metadata: { name: "a" }, spec: s.spec } as unknown as Resource;
    const intents = derivedPackageIntents(res, false);
    const per = PACKAGE_FAMILIES.map((f) => {
      const mine = intents.filter((i) => i.attributes.manager === f.manager).map((i) => `${String(i.attributes.name)}${i.attributes.optional ? "?" : ""}`);
      return `${f.family}/${f.manager}: ${mine.join(" ") || "-"}`;
    });
    lines.push(`${s.kind}${s.label ? ` (${s.label})` : ""}  ${per.join("  ")}`);
  }
  return lines.join("\n") + "\n";
}

describe("derived packages per OS family", () => {
  it("match the golden table", () => {
    if (process.env.ROUTERD_UPDATE_GOLDEN === "1") writeFileSync(GOLDEN, table());
    expect(table()).toBe(readFileSync(GOLDEN, "utf8"));
  });

  it("every family has a say for every package (a name or null), and the intents carry the family's OS ids", () => {
    for (const [pkg, names] of Object.entries(PACKAGE_NAMES)) for (const f of PACKAGE_FAMILIES) expect(names[f.family], `${pkg} on ${f.family}`).not.toBeUndefined();
    const res = { kind: "BGPRouter", owner: "x/BGPRouter/a", metadata: { name: "a" }, spec: {} } as unknown as Resource;
    expect(derivedPackageIntents(res, true).map((i) => [i.name, i.action, i.attributes.os])).toEqual([
      ["apt/gobgpd", "ensure", ["debian", "ubuntu"]],
      ["dnf/gobgp", "ensure", ["fedora", "rhel", "rocky", "almalinux"]],
      ["pkg/gobgp", "ensure", ["freebsd"]],
    ]);
  });
});

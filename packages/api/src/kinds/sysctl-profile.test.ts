// SysctlProfile router-linux: reverse-path filtering per link, off where a DHCPv4Client must receive its
// first replies from a server no route covers yet (the lab found a router that never got its lease).
import { describe, expect, it } from "vitest";
import { makeConfigView } from "../config-view.js";
import { loadConfig } from "../load.js";
import { kindDefinition } from "./index.js";

type Doc = { apiVersion?: string; kind: string; name: string; spec: Record<string, unknown> };
const NET = "net.routerd.net/v1alpha1";
const SYSTEM = "system.routerd.net/v1alpha1";

function sysctls(resources: Doc[]): Record<string, string> {
  const text = JSON.stringify({
    apiVersion: "routerd.net/v1alpha1",
    kind: "Router",
    metadata: { name: "t" },
    spec: { resources: resources.map((r) => ({ apiVersion: r.apiVersion ?? NET, kind: r.kind, metadata: { name: r.name }, spec: r.spec })) },
  });
  const r = loadConfig(text, "t.yaml");
  if (!r.config) throw new Error(JSON.stringify(r.issues));
  const view = makeConfigView(r.config);
  const profile = r.config.resources.find((x) => x.kind === "SysctlProfile")!;
  const out: Record<string, string> = {};
  for (const i of kindDefinition("SysctlProfile")!.intents(profile, view)) if (i.kind === "linux.sysctl") out[i.name] = String(i.attributes.value);
  return out;
}

const links: Doc[] = [
  { kind: "Interface", name: "wan1", spec: { ifname: "wan1" } },
  { kind: "Interface", name: "wan2", spec: { ifname: "eth1" } },
  { kind: "Interface", name: "lan", spec: { ifname: "lan0" } },
  { kind: "Interface", name: "vlan", spec: { ifname: "lan0.100" } },
];
const profile = (spec: Record<string, unknown> = {}): Doc => ({ apiVersion: SYSTEM, kind: "SysctlProfile", name: "router", spec: { profile: "router-linux", ...spec } });

describe("SysctlProfile router-linux reverse-path filtering", () => {
  it("is loose on every link and off on DHCPv4 uplinks; 'all' stays 0 so the per-link values decide", () => {
    const v = sysctls([...links, { kind: "DHCPv4Client", name: "isp1", spec: { interface: "wan1" } }, profile()]);
    expect(v["net.ipv4.conf.all.rp_filter"]).toBe("0");
    expect(v["net.ipv4.conf.default.rp_filter"]).toBe("2");
    expect(v["net.ipv4.conf.wan1.rp_filter"]).toBe("0");
    expect(v["net.ipv4.conf.eth1.rp_filter"]).toBe("2");
    expect(v["net.ipv4.conf.lan0.rp_filter"]).toBe("2");
    // A dotted link name cannot be written as a dotted key: it keeps the default's value.
    expect(Object.keys(v).filter((k) => k.includes("lan0.100"))).toEqual([]);
  });

  it("leaves a key to an explicit Sysctl resource, and overrides win", () => {
    const v = sysctls([
      ...links,
      { apiVersion: SYSTEM, kind: "Sysctl", name: "lan-strict", spec: { key: "net.ipv4.conf.lan0.rp_filter", value: 1 } },
      profile({ overrides: { "net.ipv4.conf.eth1.rp_filter": 1 } }),
    ]);
    expect(v["net.ipv4.conf.lan0.rp_filter"]).toBeUndefined();
    expect(v["net.ipv4.conf.eth1.rp_filter"]).toBe("1");
  });
});

// PPPoESession: the session routerd-pppoe-client reports becomes the default route and DNS block; its PPP
// link is an interface other resources name; validation catches what pppd could not run.
import { describe, expect, it } from "vitest";
import { makeConfigView } from "../config-view.js";
import { loadConfig } from "../load.js";
import { runtimeFrom, type PppoeSession, type RuntimeFact } from "../runtime.js";
import { kindDefinition } from "./index.js";
import { pppoeClientConfig, type PPPoESessionSpec } from "./pppoe-session.js";

const GROUPS: Record<string, string> = { FirewallZone: "firewall.routerd.net/v1alpha1" };
const doc = (resources: { kind: string; name: string; spec: Record<string, unknown> }[]) =>
  JSON.stringify({
    apiVersion: "routerd.net/v1alpha1",
    kind: "Router",
    metadata: { name: "t" },
    spec: { resources: resources.map((r) => ({ apiVersion: GROUPS[r.kind] ?? "net.routerd.net/v1alpha1", kind: r.kind, metadata: { name: r.name }, spec: r.spec })) },
  });

const wan = { kind: "Interface", name: "wan", spec: { ifname: "eth0" } };
const session = (spec: Record<string, unknown> = {}, name = "isp") => ({ kind: "PPPoESession", name, spec: { interface: "wan", username: "u@isp", passwordFile: "/etc/routerd/secrets/isp", ...spec } });

function issues(resources: Parameters<typeof doc>[0], severity: "error" | "warning" = "error"): string[] {
  return loadConfig(doc(resources), "t.yaml")
    .issues.filter((i) => i.severity === severity)
    .map((i) => `${i.resource} ${i.field}: ${i.message}`);
}

const UP: PppoeSession = { device: "ppp0", interface: "eth0", currentAddress: "10.64.0.100", peerAddress: "10.64.0.1", gateway: "10.64.0.1", dnsServers: ["192.0.2.53"], ipv6PeerLinkLocal: "fe80::1", connectedAt: "2030-01-01T00:00:00.000Z" };

function intents(spec: Record<string, unknown>, fact: RuntimeFact<PppoeSession>) {
  const r = loadConfig(doc([wan, session(spec)]), "t.yaml");
  expect(r.issues.filter((i) => i.severity === "error")).toEqual([]);
  const view = makeConfigView(r.config!, runtimeFrom({ pppoe: new Map([["isp", fact]]) }));
  const res = r.config!.resources.find((x) => x.kind === "PPPoESession")!;
  return kindDefinition("PPPoESession")!.intents(res, view).map((i) => `${i.kind} ${i.name}${i.attributes.device ? ` dev ${i.attributes.device}` : ""}`);
}

describe("PPPoESession validation", () => {
  it("accepts the original API's fields, with defaults", () => {
    const r = loadConfig(doc([wan, session({ authMethod: "chap", mtu: 1454, mru: 1454, acName: "BAS", serviceName: "internet", lcpEchoInterval: 20, lcpEchoFailure: 5, persist: false, secretEncoding: "plain" })]), "t.yaml");
    expect(r.issues).toEqual([]);
    const s = r.config!.resources.find((x) => x.kind === "PPPoESession")!.spec as PPPoESessionSpec;
    expect(s).toMatchObject({ ifname: "ppp0", defaultRoute: false, usePeerDNS: false, ipv6: false, enabled: true, managed: true });
  });

  it("wants exactly one of password and passwordFile", () => {
    expect(issues([wan, session({ password: "p" })])).toEqual(["PPPoESession/isp spec.passwordFile: give exactly one of password and passwordFile"]);
    expect(issues([wan, { kind: "PPPoESession", name: "isp", spec: { interface: "wan", username: "u" } }])).toEqual(["PPPoESession/isp spec.password: give exactly one of password and passwordFile"]);
  });

  it("refuses what it cannot do, and says what to write instead", () => {
    expect(issues([wan, session({ managed: false })])).toEqual(["PPPoESession/isp spec.managed: routerd always runs the session itself (routerd-pppoe-client)"]);
    expect(issues([wan, session({ lcpInterval: 5, lcpEchoInterval: 10 })])).toEqual(["PPPoESession/isp spec.lcpInterval: lcpInterval is the older name of lcpEchoInterval, and the two disagree"]);
    expect(issues([wan, session({ lcpFailure: 5 })], "warning")).toEqual(["PPPoESession/isp spec.lcpFailure: lcpFailure is the older name of lcpEchoFailure"]);
    expect(issues([wan, session({ username: "a\nb" })])[0]).toMatch(/username/);
  });

  it("keeps two sessions from sharing a PPP interface or the default route, and an Interface from claiming it", () => {
    expect(issues([wan, session(), session({}, "isp2")])).toEqual(["PPPoESession/isp2 spec.ifname: PPPoESession/isp already uses ifname ppp0"]);
    expect(issues([wan, session({ defaultRoute: true }), session({ ifname: "ppp1", defaultRoute: true }, "isp2")])).toEqual(["PPPoESession/isp2 spec.defaultRoute: PPPoESession/isp installs the default route too"]);
    expect(issues([wan, { kind: "Interface", name: "p", spec: { ifname: "ppp0" } }, session()])).toEqual([
      "PPPoESession/isp spec.ifname: Interface/p names the link ppp0, which pppd creates and removes with every session",
    ]);
  });
});

describe("PPPoESession intents", () => {
  it("runs the daemon; the route and DNS follow the session", () => {
    expect(intents({ defaultRoute: true, usePeerDNS: true, ipv6: true }, { state: "absent", reason: "phase Connecting" })).toEqual(["routerd.daemon pppoe-client/isp"]);
    expect(intents({ defaultRoute: true, usePeerDNS: true, ipv6: true }, { state: "present", value: UP, phase: "Up" })).toEqual([
      "routerd.daemon pppoe-client/isp",
      "linux.ipv4.route table=254,dst=0.0.0.0/0,metric=0 dev ppp0",
      "linux.ipv6.route table=254,dst=::/0,metric=0 dev ppp0",
      "file /etc/resolv.conf#pppoe-isp",
    ]);
    expect(intents({}, { state: "present", value: UP, phase: "Up" })).toEqual(["routerd.daemon pppoe-client/isp"]);
  });

  it("enabled: false runs nothing", () => {
    expect(intents({ enabled: false }, { state: "present", value: UP, phase: "Up" })).toEqual([]);
  });

  it("writes the daemon's config with the Linux interface and the LCP echo defaults", () => {
    const r = loadConfig(doc([wan, session({ lcpFailure: 4 })]), "t.yaml");
    const res = r.config!.resources.find((x) => x.kind === "PPPoESession")! as Parameters<typeof pppoeClientConfig>[0];
    expect(pppoeClientConfig(res, makeConfigView(r.config!))).toEqual({
      interface: "eth0",
      ifname: "ppp0",
      username: "u@isp",
      passwordFile: "/etc/routerd/secrets/isp",
      authMethod: "both",
      ipv6: false,
      usePeerDNS: false,
      lcpEchoInterval: 10,
      lcpEchoFailure: 4,
      persist: true,
    });
  });
});

describe("the session as an interface", () => {
  it("NAT44Rule, FirewallZone and DHCPv6PrefixDelegation name it and get its Linux name", () => {
    const r = loadConfig(
      doc([
        wan,
        session({ ifname: "pppoe-wan" }),
        { kind: "NAT44Rule", name: "masq", spec: { egressInterface: "isp", sourceRanges: ["192.168.1.0/24"] } },
        { kind: "FirewallZone", name: "outside", spec: { role: "untrust", interfaces: ["isp"] } },
        { kind: "DHCPv6PrefixDelegation", name: "pd", spec: { interface: "isp", prefixLength: 56 } },
      ]),
      "t.yaml",
    );
    expect(r.issues.filter((i) => i.severity === "error")).toEqual([]);
    const view = makeConfigView(r.config!);
    expect(view.ifname("isp")).toBe("pppoe-wan");
    const nat = r.config!.resources.find((x) => x.kind === "NAT44Rule")!;
    expect(kindDefinition("NAT44Rule")!.status!(nat, view).fields.egressInterface).toBe("pppoe-wan");
  });
});

// The IPv6 kinds: prefix arithmetic, intents that follow the delegated prefix (present, absent, unknown),
// and the semantic rules that keep dnsmasq's behaviour honest.
import { describe, expect, it } from "vitest";
import { makeConfigView } from "../config-view.js";
import { loadConfig } from "../load.js";
import { runtimeFrom, type DelegatedPrefix, type RuntimeFact } from "../runtime.js";
import { delegatedInformation, type DHCPv6InformationSpec } from "./dhcpv6-information.js";
import { kindDefinition } from "./index.js";
import { makeStatusView } from "../status-view.js";
import { deriveLanAddress, formatIpv6, parseIpv6, parseIpv6Prefix, parseSubnetId } from "./ipv6-prefix.js";

describe("IPv6 prefix arithmetic", () => {
  it("parses a subnet ID as the original does: decimal, then 0x hex, then bare hex", () => {
    expect([0, "0", "1", "10", "0x1f", "1f", "a", "0X10"].map((v) => parseSubnetId(v))).toEqual([0n, 0n, 1n, 10n, 31n, 31n, 10n, 16n]);
  });

  it("prints addresses the way iproute2 does (RFC 5952)", () => {
    const cases: [string, string][] = [
      ["2001:0DB8:0000:0000:0000:0000:0000:0001", "2001:db8::1"],
      ["2001:db8:0:1:0:0:0:1", "2001:db8:0:1::1"],
      ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"],
      ["2001:db8:1:0:1:1:1:1", "2001:db8:1:0:1:1:1:1"],
      ["::", "::"],
      ["::ffff:192.0.2.1", "::ffff:c000:201"],
      ["fe80::", "fe80::"],
    ];
    for (const [input, canonical] of cases) expect(formatIpv6(parseIpv6(input)!), input).toBe(canonical);
    expect(parseIpv6("2001:db8::1%eth0")).toBeUndefined();
    expect(parseIpv6Prefix("2001:DB8:1000::/56")).toEqual({ prefix: "2001:db8:1000::", length: 56 });
  });

  it("numbers LAN /64s from a delegated prefix", () => {
    expect(deriveLanAddress({ prefix: "2001:db8:1000::", length: 56 }, 0n, "::1")).toEqual({ ok: true, address: "2001:db8:1000::1", network: "2001:db8:1000::" });
    expect(deriveLanAddress({ prefix: "2001:db8:1000:ab00::", length: 56 }, 0xcdn, "::1:2")).toEqual({ ok: true, address: "2001:db8:1000:abcd::1:2", network: "2001:db8:1000:abcd::" });
    expect(deriveLanAddress({ prefix: "2001:db8:1000::", length: 64 }, 0n, "::a")).toMatchObject({ ok: true, address: "2001:db8:1000::a" });
    expect(deriveLanAddress({ prefix: "2001:db8:1000::", length: 60 }, 16n, "::1")).toEqual({ ok: false, reason: "subnet ID 16 does not fit in the 4 bits of a /60" });
    expect(deriveLanAddress({ prefix: "2001:db8:1000::", length: 72 }, 0n, "::1")).toMatchObject({ ok: false });
    expect(deriveLanAddress({ prefix: "2001:db8:1000::", length: 56 }, 0n, "1::1")).toMatchObject({ ok: false });
  });
});

const HEAD = "apiVersion: routerd.net/v1alpha1\nkind: Router\nmetadata: { name: v6 }\nspec:\n  resources:\n";
const doc = (kind: string, name: string, spec: string) => `    - apiVersion: net.routerd.net/v1alpha1\n      kind: ${kind}\n      metadata: { name: ${name} }\n      spec: ${spec}\n`;
const BASE = [
  doc("Interface", "wan", "{ ifname: wan0 }"),
  doc("Interface", "lan", "{ ifname: lan0 }"),
  doc("Interface", "guest", "{ ifname: lan1 }"),
  doc("DHCPv6PrefixDelegation", "isp", "{ interface: wan, prefixLength: 56 }"),
];

function load(...extra: string[]) {
  return loadConfig(HEAD + [...BASE, ...extra].join(""), "v6.yaml");
}

function errorsOf(...extra: string[]) {
  return load(...extra)
    .issues.filter((i) => i.severity === "error")
    .map((i) => [i.resource, i.field, i.message]);
}

const T = Date.UTC(2026, 10, 30, 12, 0, 0);
const prefix: DelegatedPrefix = {
  prefix: "2001:db8:1000::",
  prefixLength: 56,
  preferredLifetime: 30,
  validLifetime: 60,
  expiresAt: new Date(T + 60_000).toISOString(),
  dnsServers: ["2001:db8::53"],
  domainSearch: ["example.net"],
};

function intentsWith(fact: RuntimeFact<DelegatedPrefix> | undefined, ...extra: string[]) {
  const r = load(...extra);
  expect(r.issues.filter((i) => i.severity === "error")).toEqual([]);
  const view = makeConfigView(r.config!, runtimeFrom({ prefixes: new Map(fact ? [["isp", fact]] : []) }));
  const by = (kind: string, name: string) => {
    const res = view.find(kind, name)!;
    const def = kindDefinition(kind)!;
    return { intents: def.intents(res, view), held: def.holdsExisting?.(res, view) };
  };
  return { by, view };
}

const LAN = doc("IPv6DelegatedAddress", "lan6", "{ prefixDelegation: isp, interface: lan, subnetID: 1 }");

describe("DHCPv6PrefixDelegation", () => {
  it("always runs its daemon; with a prefix it adds the unreachable route for the whole delegation", () => {
    const present = intentsWith({ state: "present", value: prefix }).by("DHCPv6PrefixDelegation", "isp");
    expect(present.intents.map((i) => [i.kind, i.name, i.attributes])).toEqual([
      ["routerd.daemon", "dhcpv6-client/isp", { daemon: "dhcpv6-client", instance: "isp" }],
      ["linux.ipv6.route", "table=254,dst=2001:db8:1000::/56,metric=2048", { table: 254, destination: "2001:db8:1000::/56", metric: 2048, type: "unreachable" }],
    ]);
    expect(present.held).toBeUndefined();
    const unknown = intentsWith({ state: "unknown", reason: "daemon not answering" }).by("DHCPv6PrefixDelegation", "isp");
    expect(unknown.intents.map((i) => i.kind)).toEqual(["routerd.daemon"]);
    expect(unknown.held).toMatch(/delegated prefix unknown \(daemon not answering\)/);
    const absent = intentsWith({ state: "absent", reason: "phase Soliciting" }).by("DHCPv6PrefixDelegation", "isp");
    expect(absent.intents.map((i) => i.kind)).toEqual(["routerd.daemon"]);
    expect(absent.held).toBeUndefined();
  });
});

describe("IPv6DelegatedAddress", () => {
  it("derives <prefix>:<subnetID>::<suffix>/64 with the lease's lifetimes, owned by itself", () => {
    const { intents } = intentsWith({ state: "present", value: prefix }, LAN).by("IPv6DelegatedAddress", "lan6");
    expect(intents).toEqual([
      { kind: "linux.link", name: "lan0", owner: "net.routerd.net/v1alpha1/IPv6DelegatedAddress/lan6", action: "observe", applyWith: "ip-batch", attributes: { ifname: "lan0" } },
      {
        kind: "linux.ipv6.address",
        name: "lan0/2001:db8:1000:1::1/64",
        owner: "net.routerd.net/v1alpha1/IPv6DelegatedAddress/lan6",
        action: "ensure",
        applyWith: "ip-batch",
        attributes: {
          ifname: "lan0",
          address: "2001:db8:1000:1::1",
          prefixLength: 64,
          validUntil: new Date(T + 60_000).toISOString(),
          preferredUntil: new Date(T + 30_000).toISOString(),
        },
      },
    ]);
  });

  it("an infinite lease gives a permanent address", () => {
    const forever = { ...prefix, preferredLifetime: 0xffffffff, validLifetime: 0xffffffff };
    const { intents } = intentsWith({ state: "present", value: forever }, LAN).by("IPv6DelegatedAddress", "lan6");
    expect(intents[1]!.attributes).toEqual({ ifname: "lan0", address: "2001:db8:1000:1::1", prefixLength: 64 });
  });

  it("wants no address without a prefix, keeps what exists while the prefix is unknown", () => {
    const absent = intentsWith({ state: "absent" }, LAN).by("IPv6DelegatedAddress", "lan6");
    expect(absent.intents.map((i) => i.action)).toEqual(["observe"]);
    expect(absent.held).toBeUndefined();
    const unknown = intentsWith(undefined, LAN).by("IPv6DelegatedAddress", "lan6");
    expect(unknown.intents.map((i) => i.action)).toEqual(["observe"]);
    expect(unknown.held).toMatch(/delegated prefix of isp unknown/);
  });

  it("a server that delegates a longer prefix than asked for leaves a subnet ID that does not fit without an address", () => {
    const { intents } = intentsWith({ state: "present", value: { ...prefix, prefixLength: 64 } }, LAN).by("IPv6DelegatedAddress", "lan6");
    expect(intents.map((i) => i.kind)).toEqual(["linux.link"]);
  });
});

describe("LAN services render into the managed dnsmasq whatever the lease", () => {
  it.each(["IPv6RouterAdvertisement", "DHCPv6Server", "DHCPv6Information"])("%s emits the dnsmasq file and daemon", (kind) => {
    const name = { IPv6RouterAdvertisement: "ra", DHCPv6Server: "srv", DHCPv6Information: "info" }[kind]!;
    const { by } = intentsWith({ state: "absent" }, LAN, doc("IPv6RouterAdvertisement", "ra", "{ interface: lan }"), doc("DHCPv6Server", "srv", "{ interface: lan }"), doc("DHCPv6Information", "info", "{ interface: lan }"));
    expect(by(kind, name).intents.map((i) => i.name)).toEqual(["/etc/routerd/dnsmasq.conf#lan-services", "dnsmasq/main"]);
  });
});

describe("DHCPv6Information's DNS servers", () => {
  const INFO = [LAN, doc("IPv6RouterAdvertisement", "ra", "{ interface: lan }"), doc("DHCPv6Information", "info", "{ interface: lan }")];
  const infoWith = (fact: RuntimeFact<DelegatedPrefix> | undefined) => {
    const { view } = intentsWith(fact, ...INFO);
    return delegatedInformation(view, view.find<DHCPv6InformationSpec>("DHCPv6Information", "info")!.spec);
  };

  it("come from the delegation while it is held, and stay as last reported after a loss", () => {
    expect(infoWith({ state: "present", value: prefix })).toEqual({ dnsServers: ["2001:db8::53"], domainSearch: ["example.net"], sntpServers: [] });
    expect(infoWith({ state: "absent", last: { dnsServers: ["2001:db8::54"], domainSearch: [], aftrName: "aftr.example" } })).toEqual({ dnsServers: ["2001:db8::54"], domainSearch: [], sntpServers: [], aftrName: "aftr.example" });
    expect(infoWith({ state: "absent" })).toEqual({ dnsServers: [], domainSearch: [], sntpServers: [] });
    expect(infoWith(undefined)).toEqual({ dnsServers: [], domainSearch: [], sntpServers: [] });
  });

  it("on the WAN (the original's meaning) only publishes what the delegation's server said, as far as request asks", () => {
    const { view, by } = intentsWith({ state: "present", value: { ...prefix, sntpServers: ["2001:db8::123"], aftrName: "aftr.example" } }, doc("DHCPv6Information", "wan-info", "{ interface: wan, request: [aftr-name, dns-servers] }"));
    expect(by("DHCPv6Information", "wan-info").intents.map((i) => [i.kind, i.action])).toEqual([["linux.link", "observe"]]);
    const info = makeStatusView({ config: view.config, runtime: view.runtime }).published("DHCPv6Information/wan-info");
    expect(info.fields).toEqual({ source: "DHCPv6PrefixDelegation/isp", dnsServers: ["2001:db8::53"], aftrName: "aftr.example" });
    expect(errorsOf(doc("DHCPv6Information", "wan-info", "{ interface: wan }"))).toEqual([]);
  });
});

describe("semantic rules", () => {
  it("accepts a complete LAN", () => {
    expect(
      errorsOf(
        LAN,
        doc("IPv6RouterAdvertisement", "ra", "{ interface: lan, prefixFrom: [lan6], rdnss: ['2001:db8::53'], oFlag: true, mFlag: true, interval: 30s }"),
        doc("DHCPv6Server", "srv", "{ interface: lan, mode: both, addressPool: { start: '::1000', end: '::1fff' } }"),
      ),
    ).toEqual([]);
  });

  it("rejects what cannot work", () => {
    expect(
      errorsOf(
        doc("DHCPv6PrefixDelegation", "isp2", "{ interface: wan, hint: '2001:db8:1000::/48', prefixLength: 56 }"),
        doc("IPv6DelegatedAddress", "a", "{ prefixDelegation: isp, interface: lan, subnetID: 256 }"),
        doc("IPv6DelegatedAddress", "b", "{ prefixDelegation: isp, interface: guest, subnetID: '0x1' }"),
        doc("IPv6DelegatedAddress", "c", "{ prefixDelegation: isp, interface: guest, subnetID: 1, announce: false }"),
        doc("IPv6DelegatedAddress", "d", "{ prefixDelegation: isp, interface: wan, addressSuffix: '::' }"),
        doc("IPv6RouterAdvertisement", "ra", "{ interface: guest, prefixFrom: [a, b], mFlag: true, interval: 2s }"),
        doc("DHCPv6Server", "srv", "{ interface: lan, mode: stateful }"),
        doc("DHCPv6Information", "info", "{ interface: lan, request: [dns-servers] }"),
      ),
    ).toEqual([
      ["DHCPv6PrefixDelegation/isp2", "spec.interface", expect.stringMatching(/already runs DHCPv6PrefixDelegation\/isp/)],
      ["DHCPv6PrefixDelegation/isp2", "spec.hint", expect.stringMatching(/the hint is a \/48 but prefixLength is 56/)],
      ["IPv6DelegatedAddress/a", "spec.subnetID", expect.stringMatching(/subnet ID 256 does not fit in the 8 bits a \/56 leaves/)],
      ["IPv6DelegatedAddress/c", "spec.subnetID", expect.stringMatching(/number 1 of isp is already used by IPv6DelegatedAddress\/b/)],
      ["IPv6DelegatedAddress/d", "spec.addressSuffix", expect.stringMatching(/subnet-router anycast/)],
      ["IPv6RouterAdvertisement/ra", "spec.interface", expect.stringMatching(/IPv6DelegatedAddress\/c on this interface has announce: false/)],
      ["IPv6RouterAdvertisement/ra", "spec.prefixFrom[0]", expect.stringMatching(/IPv6DelegatedAddress\/a is not on Interface guest/)],
      ["IPv6RouterAdvertisement/ra", "spec.mFlag", expect.stringMatching(/is false for this interface: dnsmasq sets M\/O from the DHCPv6 service \(ra-only\)/)],
      ["IPv6RouterAdvertisement/ra", "spec.interval", expect.stringMatching(/between 4s and 30m/)],
      ["DHCPv6Server/srv", "spec.addressPool", expect.stringMatching(/mode stateful needs an addressPool/)],
      ["DHCPv6Server/srv", "spec.interface", expect.stringMatching(/Interface lan has no IPv6RouterAdvertisement/)],
      ["DHCPv6Information/info", "spec.interface", expect.stringMatching(/Interface lan has no IPv6RouterAdvertisement/)],
      ["DHCPv6Information/info", "spec.request", expect.stringMatching(/only applies on the WAN/)],
    ]);
  });
});

import { describe, expect, it } from "vitest";
import { makeConfigView } from "../config-view.js";
import { effectiveView } from "../effective-view.js";
import { loadConfig } from "../load.js";
import { runtimeFrom, type DelegatedPrefix, type Dhcpv4Lease, type RuntimeFact } from "../runtime.js";
import { makeStatusView } from "../status-view.js";
import { kindDefinition } from "./index.js";
import { ntpStatus, type NTPClientSpec } from "./ntp-client.js";

const ntpClientSpecDefaults = (): NTPClientSpec => ({ provider: "chrony", servers: [], fallbackServers: [], managed: true, source: "static" });

const HEAD = "apiVersion: routerd.net/v1alpha1\nkind: Router\nmetadata: { name: test }\nspec:\n  resources:\n";
const res = (group: string, kind: string, name: string, spec: string) => `    - apiVersion: ${group}.routerd.net/v1alpha1\n      kind: ${kind}\n      metadata: { name: ${name} }\n      spec: ${spec}\n`;
const ntp = (name: string, spec: string) => res("system", "NTPClient", name, spec);
const load = (...r: string[]) => loadConfig(HEAD + r.join(""), "f.yaml");

function intents(...r: string[]) {
  const result = load(...r);
  expect(result.issues.filter((i) => i.severity === "error")).toEqual([]);
  const view = makeConfigView(result.config!);
  return result.config!.resources.filter((x) => x.kind === "NTPClient").flatMap((x) => kindDefinition(x.kind)!.intents(x, view));
}

describe("NTPClient rendering per provider (owned blocks, never the whole file)", () => {
  it("systemd-timesyncd: a [Time] drop-in with NTP and FallbackNTP, restarted on change", () => {
    const [i] = intents(ntp("time", "{ servers: [ntp1.example.net, 192.0.2.123], fallbackServers: [pool.example.org] }"));
    expect(i).toMatchObject({ kind: "file", name: "/etc/systemd/timesyncd.conf.d/routerd.conf#ntp-time", action: "ensure" });
    expect(i!.attributes).toEqual({
      path: "/etc/systemd/timesyncd.conf.d/routerd.conf",
      block: "ntp-time",
      reload: "systemd-timesyncd",
      content: "[Time]\nNTP=ntp1.example.net 192.0.2.123\nFallbackNTP=pool.example.org\n",
    });
  });

  it("chrony: server lines in sources.d, reloaded with chronyc; fallback servers only while none is known", () => {
    const [i] = intents(ntp("time", "{ provider: chrony, servers: [192.0.2.123, 2001:db8::123] }"));
    expect(i!.attributes).toEqual({ path: "/etc/chrony/sources.d/routerd.sources", block: "ntp-time", reload: "chrony", content: "server 192.0.2.123 iburst\nserver 2001:db8::123 iburst\n" });
    const [f] = intents(ntp("time", "{ provider: chrony, fallbackServers: [pool.example.org] }"));
    expect(f!.attributes.content).toBe("server pool.example.org iburst\n");
  });

  it("ntpd: a block in ntpsec's ntp.conf", () => {
    const [i] = intents(ntp("time", "{ provider: ntpd, servers: [ntp1.example.net] }"));
    expect(i!.attributes).toMatchObject({ path: "/etc/ntpsec/ntp.conf", block: "ntp-time", reload: "ntpd", content: "server ntp1.example.net iburst\n" });
  });

  it("managed: false only observes", () => {
    const [i] = intents(ntp("time", "{ managed: false, servers: [ntp1.example.net] }"));
    expect(i).toMatchObject({ action: "observe", attributes: { path: "/etc/systemd/timesyncd.conf.d/routerd.conf", block: "ntp-time" } });
  });
});

describe("NTPClient validation", () => {
  const errors = (...r: string[]) =>
    load(...r)
      .issues.filter((i) => i.severity === "error")
      .map((e) => [e.field, e.message, e.hint]);

  it("source: dhcp needs serverFrom, and says what to write", () => {
    expect(errors(ntp("time", "{ source: dhcp }"))).toEqual([
      ["spec.serverFrom", expect.stringMatching(/needs serverFrom/), "serverFrom: [{resource: DHCPv4Client/wan, field: ntpServers}]"],
      ["spec.servers", expect.stringMatching(/nothing to ask/), undefined],
    ]);
  });

  it("one provider per host; serverFrom must name a field that provides servers", () => {
    expect(errors(ntp("a", "{ servers: [192.0.2.1] }"), ntp("b", "{ provider: chrony, servers: [192.0.2.2] }")).map((e) => e[0])).toEqual(["spec.provider"]);
    const e = errors(res("net", "Interface", "wan", "{ ifname: wan0 }"), res("net", "DHCPv4Client", "wan", "{ interface: wan }"), ntp("time", "{ provider: chrony, serverFrom: [{ resource: DHCPv4Client/wan, field: leaseTime }] }"));
    expect(e).toHaveLength(1);
    expect(e[0]![0]).toMatch(/^spec\.serverFrom/);
  });
});

describe("NTPClient servers from a DHCPv6 delegation's SNTP option (serverFrom), and status", () => {
  const doc = (spec: string) =>
    load(res("net", "Interface", "wan", "{ ifname: wan0 }"), res("net", "DHCPv6PrefixDelegation", "wan", "{ interface: wan, prefixLength: 56 }"), ntp("time", spec));
  const prefix = { prefix: "2001:db8:1000::", prefixLength: 56, preferredLifetime: 3600, validLifetime: 7200, expiresAt: "2030-01-01T00:00:00.000Z", dnsServers: [], domainSearch: [], sntpServers: ["2001:db8::123", "2001:db8::124"] };

  function resolved(spec: string, fact: RuntimeFact<DelegatedPrefix>) {
    const r = doc(spec);
    expect(r.issues.filter((i) => i.severity === "error")).toEqual([]);
    const status = makeStatusView({ config: r.config!, runtime: runtimeFrom({ prefixes: new Map([["wan", fact]]) }) });
    const v = effectiveView(r.config!, status, status);
    return { v, ntp: v.active.find((x) => x.kind === "NTPClient") };
  }

  it("takes the delegation's sntpServers into chrony's block and reports them as the servers in use", () => {
    const { v, ntp: res } = resolved("{ provider: chrony, source: dhcpv6, serverFrom: [{ resource: DHCPv6PrefixDelegation/wan, field: sntpServers }], fallbackServers: [pool.example.org] }", { state: "present", value: prefix, phase: "Bound" });
    const def = kindDefinition("NTPClient")!;
    const view = makeConfigView({ ...v.config, resources: v.active });
    expect(def.intents(res!, view)[0]!.attributes.content).toBe("server 2001:db8::123 iburst\nserver 2001:db8::124 iburst\n");
    expect(def.status!(res!, view).fields).toEqual({ servers: ["2001:db8::123", "2001:db8::124"], source: "dhcpv6" });
  });

  it("after the delegation is lost, the SNTP servers the client last reported stay in the block", () => {
    const { v, ntp: res } = resolved("{ provider: chrony, serverFrom: [{ resource: DHCPv6PrefixDelegation/wan, field: sntpServers, optional: true }], fallbackServers: [pool.example.org] }", { state: "absent", phase: "Expired", last: { sntpServers: ["2001:db8::123"] } });
    const view = makeConfigView({ ...v.config, resources: v.active });
    expect(kindDefinition("NTPClient")!.intents(res!, view)[0]!.attributes.content).toBe("server 2001:db8::123 iburst\n");
  });

  it("an optional source without servers yet: the fallback servers are in use, and status says so", () => {
    const { v, ntp: res } = resolved("{ provider: chrony, serverFrom: [{ resource: DHCPv6PrefixDelegation/wan, field: sntpServers, optional: true }], fallbackServers: [pool.example.org] }", { state: "present", value: { ...prefix, sntpServers: [] }, phase: "Bound" });
    const view = makeConfigView({ ...v.config, resources: v.active });
    expect(kindDefinition("NTPClient")!.intents(res!, view)[0]!.attributes.content).toBe("server pool.example.org iburst\n");
    expect(kindDefinition("NTPClient")!.status!(res!, view).fields).toEqual({ servers: ["pool.example.org"], source: "fallback" });
  });

  it("status source: the spec's source while its servers are in use, `fallback` while the fallback servers stand in", () => {
    const spec = (extra: string) => `{ provider: chrony, source: dhcpv6, serverFrom: [{ resource: DHCPv6PrefixDelegation/wan, field: sntpServers, optional: true }]${extra} }`;
    const status = (s: string, sntpServers: string[]) => {
      const { v, ntp: res } = resolved(s, { state: "present", value: { ...prefix, sntpServers }, phase: "Bound" });
      return kindDefinition("NTPClient")!.status!(res!, makeConfigView({ ...v.config, resources: v.active })).fields;
    };
    expect(status(spec(", fallbackServers: [pool.example.org]"), ["2001:db8::123"])).toEqual({ servers: ["2001:db8::123"], source: "dhcpv6" });
    expect(status(spec(", fallbackServers: [pool.example.org]"), [])).toEqual({ servers: ["pool.example.org"], source: "fallback" });
    // Nothing in use at all (no fallback either): the spec's source, with no servers.
    expect(status(spec(""), [])).toEqual({ servers: [], source: "dhcpv6" });
    // timesyncd gets both lists and picks FallbackNTP itself when NTP= is empty: the same answer.
    expect(status(spec(", provider: systemd-timesyncd, fallbackServers: [pool.example.org]").replace("provider: chrony, ", ""), [])).toEqual({ servers: ["pool.example.org"], source: "fallback" });
    expect(ntpStatus({ ...ntpClientSpecDefaults(), servers: ["192.0.2.1"], fallbackServers: ["pool.example.org"] })).toEqual({ servers: ["192.0.2.1"], source: "static" });
  });
});

describe("NTPClient fallbackServers with servers from a DHCPv4 lease", () => {
  const wan = res("net", "Interface", "wan", "{ ifname: wan0 }") + res("net", "DHCPv4Client", "wan", "{ interface: wan }");
  const spec = (optional: boolean) => `{ provider: chrony, source: dhcp, serverFrom: [{ resource: DHCPv4Client/wan, field: ntpServers${optional ? ", optional: true" : ""} }], fallbackServers: [pool.example.org] }`;
  const lease = (ntpServers: string[]): RuntimeFact<Dhcpv4Lease> => ({ state: "present", value: { address: "192.0.2.10", prefixLength: 24, routers: ["192.0.2.1"], dnsServers: [], classlessRoutes: [], expiresAt: "2030-01-01T00:00:00.000Z", ntpServers } });

  /** The chrony block routerd would write, or why the NTPClient waits. */
  function outcome(optional: boolean, fact: RuntimeFact<Dhcpv4Lease>): { block?: string; pending?: string } {
    const r = load(wan, ntp("time", spec(optional)));
    const status = makeStatusView({ config: r.config!, runtime: runtimeFrom({ dhcpv4: new Map([["wan", fact]]) }) });
    const v = effectiveView(r.config!, status, status);
    const pending = v.pending.find((p) => p.resource.kind === "NTPClient");
    if (pending) return { pending: pending.reason };
    const active = v.active.find((x) => x.kind === "NTPClient")!;
    return { block: String(kindDefinition("NTPClient")!.intents(active, makeConfigView({ ...v.config, resources: v.active }))[0]!.attributes.content) };
  }

  it("a required source never lets the fallback in (the NTPClient waits), so validation warns and says to mark it optional", () => {
    expect(outcome(false, lease([]))).toEqual({ pending: expect.stringMatching(/DHCPv4Client\/wan\.ntpServers has no value/) });
    expect(outcome(false, { state: "absent", phase: "Acquiring" })).toEqual({ pending: expect.stringMatching(/DHCPv4Client\/wan\.ntpServers has no value/) });
    const warnings = load(wan, ntp("time", spec(false))).issues.filter((i) => i.severity === "warning");
    expect(warnings.map((w) => [w.field, w.hint])).toEqual([["spec.fallbackServers", "mark the source optional: serverFrom: [{resource: DHCPv4Client/wan, field: ntpServers, optional: true}]"]]);
    expect(warnings[0]!.message).toMatch(/never used: until DHCPv4Client\/wan has ntpServers, the NTPClient waits/);
  });

  it("an optional source: the fallback while no lease or a lease without option 42, the lease's servers once it brings some; no warning", () => {
    expect(load(wan, ntp("time", spec(true))).issues.filter((i) => i.severity === "warning")).toEqual([]);
    expect(outcome(true, { state: "absent", phase: "Acquiring" })).toEqual({ block: "server pool.example.org iburst\n" });
    expect(outcome(true, lease([]))).toEqual({ block: "server pool.example.org iburst\n" });
    expect(outcome(true, lease(["192.0.2.123"]))).toEqual({ block: "server 192.0.2.123 iburst\n" });
  });

  it("no warning when the fallback has a use: static servers beside it, or no serverFrom at all", () => {
    const warned = (s: string) => load(wan, ntp("time", s)).issues.filter((i) => i.severity === "warning" && i.field === "spec.fallbackServers");
    expect(warned("{ provider: chrony, servers: [192.0.2.1], serverFrom: [{ resource: DHCPv4Client/wan, field: ntpServers }], fallbackServers: [pool.example.org] }")).toEqual([]);
    expect(warned("{ provider: chrony, fallbackServers: [pool.example.org] }")).toEqual([]);
  });
});

describe("NTPClient servers from a DHCPv6Information whose request leaves out sntp-servers", () => {
  const prefix = { prefix: "2001:db8:1000::", prefixLength: 56, preferredLifetime: 3600, validLifetime: 7200, expiresAt: "2030-01-01T00:00:00.000Z", dnsServers: ["2001:db8::53"], domainSearch: [], sntpServers: ["2001:db8::123"] };
  const wan = (request: string) =>
    res("net", "Interface", "wan", "{ ifname: wan0 }") + res("net", "DHCPv6PrefixDelegation", "wan", "{ interface: wan, prefixLength: 56 }") + res("net", "DHCPv6Information", "wan-info", `{ interface: wan, request: [${request}] }`);
  const spec = (optional: boolean) => `{ provider: chrony, source: dhcpv6, serverFrom: [{ resource: DHCPv6Information/wan-info, field: sntpServers${optional ? ", optional: true" : ""} }], fallbackServers: [pool.example.org] }`;
  const warnings = (request: string, optional = false) => load(wan(request), ntp("time", spec(optional))).issues.filter((i) => i.severity === "warning" && i.field.startsWith("spec.serverFrom"));

  it("a required source waits Pending for ever (the server's SNTP option never reaches it), so validation warns where and what to write", () => {
    const r = load(wan("dns-servers"), ntp("time", spec(false)));
    expect(r.issues.filter((i) => i.severity === "error")).toEqual([]);
    const status = makeStatusView({ config: r.config!, runtime: runtimeFrom({ prefixes: new Map([["wan", { state: "present", value: prefix, phase: "Bound" }]]) }) });
    expect(effectiveView(r.config!, status, status).pending.find((p) => p.resource.kind === "NTPClient")?.reason).toMatch(/DHCPv6Information\/wan-info\.sntpServers has no value/);
    const [w, ...more] = warnings("dns-servers");
    expect(more).toEqual([]);
    expect(w).toMatchObject({
      file: "f.yaml",
      line: expect.any(Number),
      resource: "NTPClient/time",
      field: "spec.serverFrom[0].resource",
      hint: "add sntp-servers to its request: request: [dns-servers, sntp-servers]",
    });
    expect(w!.message).toMatch(/DHCPv6Information\/wan-info requests dns-servers, not sntp-servers: it never publishes sntpServers, so the NTPClient waits \(Pending\) for ever/);
  });

  it("an optional source is only never used; no warning when the request has sntp-servers or there is no request", () => {
    expect(warnings("dns-servers", true).map((w) => w.message)).toEqual([expect.stringMatching(/so this source is never used/)]);
    expect(warnings("dns-servers, sntp-servers")).toEqual([]);
    expect(load(wan("dns-servers").replace(", request: [dns-servers]", ""), ntp("time", spec(false))).issues.filter((i) => i.severity === "warning" && i.field.startsWith("spec.serverFrom"))).toEqual([]);
  });
});

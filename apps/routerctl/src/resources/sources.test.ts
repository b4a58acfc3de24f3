import { describe, expect, it } from "vitest";
import type { ResourceView } from "./collect.js";
import { sourceRefs, sourceStates } from "./sources.js";

const view = (id: string, spec: Record<string, unknown>, fields?: Record<string, unknown>): ResourceView => {
  const [kind, name] = id.split("/") as [string, string];
  return { id, kind, name, phase: "Ready", artifacts: [], spec, ...(fields ? { fields } : {}) };
};

describe("*From sources", () => {
  it("finds single and list sources anywhere in a spec", () => {
    const spec = { gatewayFrom: { resource: "DHCPv4Client/wan", field: "gateway" }, dns: { serverFrom: [{ resource: "A/x", field: "f", optional: true }] }, from: "not a source" };
    expect(sourceRefs(spec)).toEqual([
      { path: "gatewayFrom", resource: "DHCPv4Client/wan", field: "gateway", optional: false },
      { path: "dns.serverFrom[0]", resource: "A/x", field: "f", optional: true },
    ]);
  });

  it("says which have a value, which wait, and which stay unset", () => {
    const route = view("IPv4Route/default", { gatewayFrom: { resource: "DHCPv4Client/wan", field: "gateway" }, metricFrom: { resource: "DHCPv4Client/wan", field: "metric", optional: true }, dnsFrom: { resource: "DHCPv4Client/lte", field: "dnsServers" } });
    const all = new Map([
      ["DHCPv4Client/wan", view("DHCPv4Client/wan", {}, { gateway: "192.0.2.1", dnsServers: [] })],
      ["DHCPv4Client/lte", view("DHCPv4Client/lte", {}, { dnsServers: [] })],
    ]);
    expect(sourceStates(route, all).map((s) => [s.path, s.state, s.value ?? s.detail])).toEqual([
      ["gatewayFrom", "resolved", "192.0.2.1"],
      ["metricFrom", "unset", "DHCPv4Client/wan has no metric (optional: left unset)"],
      ["dnsFrom", "pending", "DHCPv4Client/lte has no dnsServers yet"],
    ]);
  });

  it("cannot tell without serve's fields, and names a source missing from the config", () => {
    const r = view("IPv4Route/x", { gatewayFrom: { resource: "DHCPv4Client/wan", field: "gateway" }, viaFrom: { resource: "Interface/gone", field: "device" } });
    const all = new Map([["DHCPv4Client/wan", view("DHCPv4Client/wan", {})]]);
    expect(sourceStates(r, all).map((s) => [s.state, s.detail])).toEqual([
      ["unknown", "routerd serve is not answering"],
      ["pending", "Interface/gone is not in the config"],
    ]);
  });
});

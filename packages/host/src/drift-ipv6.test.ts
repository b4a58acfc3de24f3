import { describe, expect, it } from "vitest";
import { driftOf } from "./drift.js";

// Future times: the comparison only treats times that have passed as "now".
const T = Date.now() + 3_600_000;
const at = (ms: number) => new Date(T + ms).toISOString();
const addr = { ifname: "lan0", address: "2001:db8:1000:1::1", prefixLength: 64 };

describe("drift of an IPv6 address with lifetimes", () => {
  it.each([
    ["the same expiry, seen a few seconds later", { ...addr, validUntil: at(60_000), preferredUntil: at(30_000) }, { ...addr, scope: "global", validUntil: at(59_000), preferredUntil: at(29_000) }, []],
    ["a renewed lease moves the expiry", { ...addr, validUntil: at(120_000), preferredUntil: at(90_000) }, { ...addr, validUntil: at(60_000), preferredUntil: at(30_000) }, ["validUntil", "preferredUntil"]],
    ["a permanent address where the lease wants lifetimes", { ...addr, validUntil: at(60_000), preferredUntil: at(30_000) }, { ...addr }, ["validUntil", "preferredUntil"]],
    ["lifetimes where routerd wants a permanent address", { ...addr }, { ...addr, validUntil: at(60_000), preferredUntil: at(30_000) }, ["validUntil", "preferredUntil"]],
  ] as const)("%s", (_what, desired, observed, fields) => {
    expect(driftOf("linux.ipv6.address", desired, observed).map((d) => d.field)).toEqual(fields);
  });

  it("a deprecated address is what a preferred time in the past asks for", () => {
    const now = Date.now();
    const desired = { ...addr, validUntil: new Date(now + 20_000).toISOString(), preferredUntil: new Date(now - 30_000).toISOString() };
    const observed = { ...addr, validUntil: new Date(now + 19_500).toISOString(), preferredUntil: new Date(now).toISOString() };
    expect(driftOf("linux.ipv6.address", desired, observed)).toEqual([]);
  });
});

import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ConfigError, parseResolverConfig, parseResolverConfigText } from "./config.js";
import { SourceFilter } from "./cidr.js";

// The files routerd serve writes (packages/render's golden outputs) are what this parser must accept.
const GOLDEN = new URL("../../../../packages/render/src/dns/testdata", import.meta.url).pathname;

describe("resolver config", () => {
  const goldens = readdirSync(GOLDEN).flatMap((d) => readdirSync(join(GOLDEN, d)).filter((f) => f.endsWith(".json")).map((f) => join(GOLDEN, d, f)));
  it.each(goldens)("accepts the rendered %s", (file) => {
    const c = parseResolverConfigText(readFileSync(file, "utf8"), file);
    expect(c.listen.length).toBeGreaterThan(0);
  });

  it("reports every problem at once, with paths", () => {
    let err: ConfigError | undefined;
    try {
      parseResolverConfig({
        listen: [{ name: "lo", addresses: ["not-an-ip"], port: 99999, extra: 1 }],
        zones: [{ name: "z", zone: "a..b", records: [{ name: "x.", type: "A", data: "300.1.1.1" }] }],
        forwarders: [{ name: "f", match: ["."], upstreams: ["missing"] }],
        upstreams: [{ name: "t", protocol: "dot", address: "192.0.2.1" }],
        surprise: true,
      });
    } catch (e) {
      err = e as ConfigError;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const text = err!.problems.join("\n");
    for (const p of [
      "listen[0].extra: unknown field",
      "listen[0].addresses[0]: must be an IP address",
      "listen[0].port: must be an integer from 0 to 65535",
      "zones[0].zone: empty label",
      'zones[0].records[0].data: "300.1.1.1" is not an IPv4 address',
      'forwarders[0].upstreams: no upstream named "missing"',
      "upstreams[0].tlsName: is required for DNS over TLS",
      "surprise: unknown field",
    ]) {
      expect(text).toContain(p);
    }
  });
});

describe("client networks", () => {
  it("matches IPv4, IPv6 and IPv4-mapped clients; an empty list allows all", () => {
    const f = new SourceFilter(["192.168.1.0/24", "fd00::/8", "10.1.2.3"]);
    expect(["192.168.1.77", "::ffff:192.168.1.9", "fd12::1", "10.1.2.3"].map((a) => f.allows(a))).toEqual([true, true, true, true]);
    expect(["192.168.2.1", "fe80::1", "10.1.2.4", "garbage"].map((a) => f.allows(a))).toEqual([false, false, false, false]);
    expect(new SourceFilter(["172.16.0.0/12"]).allows("172.31.255.255")).toBe(true);
    expect(new SourceFilter(["172.16.0.0/12"]).allows("172.32.0.0")).toBe(false);
    expect(new SourceFilter([]).allows("203.0.113.1")).toBe(true);
  });
});

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ConfigError, effectivePort, loadHealthcheckConfig, parseHealthcheckConfig, parseHealthcheckConfigText } from "./config.js";

const timing = { intervalMs: 1000, timeoutMs: 500, healthyThreshold: 2, unhealthyThreshold: 3 };

function problemsOf(doc: unknown): string[] {
  try {
    parseHealthcheckConfig(doc, "test.json");
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).problems;
  }
  throw new Error("expected a ConfigError");
}

describe("parseHealthcheckConfig", () => {
  it("accepts every probe type with its options", () => {
    const doc = {
      probes: [
        { name: "isp1", type: "icmp", target: "192.0.2.1", interface: "wan0", fwmark: 257, sourceAddress: "192.0.2.10", ...timing },
        { name: "ssh", type: "tcp", target: "198.51.100.7", port: 22, ...timing },
        { name: "web", type: "http", target: "example.net", path: "/health", expectStatus: [200, 204], ...timing },
        { name: "tls", type: "https", target: "2001:db8::1", ...timing },
        { name: "dns", type: "dns", target: "192.0.2.53", query: { name: "example.com", type: "AAAA" }, ...timing },
        { name: "dns-default", type: "dns", target: "192.0.2.53", query: { name: "example.com" }, ...timing },
      ],
    };
    const config = parseHealthcheckConfig(doc);
    expect(config.probes.map((p) => p.name)).toEqual(["isp1", "ssh", "web", "tls", "dns", "dns-default"]);
    expect(config.probes[0]).toMatchObject({ interface: "wan0", fwmark: 257, sourceAddress: "192.0.2.10" });
    expect(config.probes[5]!.query).toEqual({ name: "example.com", type: "A" });
    expect(config.probes.map(effectivePort)).toEqual([undefined, 22, 80, 443, 53, 53]);
  });

  it("accepts an empty probe list", () => {
    expect(parseHealthcheckConfig({ probes: [] })).toEqual({ probes: [] });
  });

  const bad: [string, unknown, RegExp[]][] = [
    ["a non-object document", [], [/the document must be an object/]],
    ["a missing probes list", {}, [/probes: must be a list/]],
    ["an unknown top-level field", { probes: [], extra: 1 }, [/unknown field "extra"/]],
    ["a probe that is not an object", { probes: ["x"] }, [/probes\[0\]: must be an object/]],
    [
      "missing required fields",
      { probes: [{ name: "a" }] },
      [/probes\[0\] \(a\): type: is required/, /target: is required/, /intervalMs: is required/, /timeoutMs: is required/, /healthyThreshold: is required/, /unhealthyThreshold: is required/],
    ],
    ["an unknown probe field", { probes: [{ name: "a", type: "icmp", target: "192.0.2.1", timeout: "1s", ...timing }] }, [/probes\[0\] \(a\): unknown field "timeout"/]],
    ["a bad type", { probes: [{ name: "a", type: "udp", target: "192.0.2.1", ...timing }] }, [/type: must be one of icmp, tcp, http, https, dns/]],
    ["a bad name", { probes: [{ name: "a b", type: "icmp", target: "192.0.2.1", ...timing }] }, [/name: must be 1-253 letters/]],
    ["a bad target", { probes: [{ name: "a", type: "icmp", target: "http://x/", ...timing }] }, [/target: must be an IP address or host name/]],
    ["a port out of range", { probes: [{ name: "a", type: "tcp", target: "192.0.2.1", port: 70000, ...timing }] }, [/port: must be an integer from 1 to 65535/]],
    ["tcp without a port", { probes: [{ name: "a", type: "tcp", target: "192.0.2.1", ...timing }] }, [/port: is required for a tcp probe/]],
    ["icmp with a port", { probes: [{ name: "a", type: "icmp", target: "192.0.2.1", port: 7, ...timing }] }, [/port: an icmp probe has no port/]],
    ["dns without a query", { probes: [{ name: "a", type: "dns", target: "192.0.2.1", ...timing }] }, [/query: is required for a dns probe/]],
    [
      "options of other types",
      { probes: [{ name: "a", type: "tcp", target: "192.0.2.1", port: 1, path: "/x", expectStatus: [200], query: { name: "x.y" }, ...timing }] },
      [/path: only applies to http and https/, /expectStatus: only applies to http and https/, /query: only applies to dns/],
    ],
    [
      "http options on tcp, tlsVerify on http",
      { probes: [{ name: "a", type: "tcp", target: "192.0.2.1", port: 1, host: "x.example", expectBody: "ok", ...timing }, { name: "b", type: "http", target: "192.0.2.1", tlsVerify: true, ...timing }] },
      [/host: only applies to http and https/, /expectBody: only applies to http and https/, /probes\[1\] \(b\): tlsVerify: only applies to https/],
    ],
    ["a bad query", { probes: [{ name: "a", type: "dns", target: "192.0.2.1", query: { name: "-bad", type: "MX", ttl: 1 }, ...timing }] }, [/query: has unknown field ttl/]],
    ["a bad query type", { probes: [{ name: "a", type: "dns", target: "192.0.2.1", query: { name: "ok.example", type: "MX" }, ...timing }] }, [/query: must be one of A, AAAA/]],
    ["bad statuses", { probes: [{ name: "a", type: "http", target: "192.0.2.1", expectStatus: [], ...timing }] }, [/expectStatus: must be a non-empty list/]],
    ["a relative path", { probes: [{ name: "a", type: "http", target: "192.0.2.1", path: "health", ...timing }] }, [/path: must be an absolute URL path/]],
    ["timeout not below interval", { probes: [{ name: "a", type: "icmp", target: "192.0.2.1", ...timing, timeoutMs: 1000 }] }, [/timeoutMs: must be shorter than intervalMs \(1000\)/]],
    ["a zero threshold", { probes: [{ name: "a", type: "icmp", target: "192.0.2.1", ...timing, healthyThreshold: 0 }] }, [/healthyThreshold: must be an integer from 1 to 100/]],
    ["a non-integer interval", { probes: [{ name: "a", type: "icmp", target: "192.0.2.1", ...timing, intervalMs: 1.5 }] }, [/intervalMs: must be an integer/]],
    ["a bad source address", { probes: [{ name: "a", type: "icmp", target: "192.0.2.1", sourceAddress: "wan0", ...timing }] }, [/sourceAddress: must be an IP address/]],
    ["a source of another family", { probes: [{ name: "a", type: "icmp", target: "2001:db8::1", sourceAddress: "192.0.2.1", ...timing }] }, [/sourceAddress: is not of the target's address family/]],
    ["a long interface name", { probes: [{ name: "a", type: "icmp", target: "192.0.2.1", interface: "averyverylongname0", ...timing }] }, [/interface: must be a Linux interface name/]],
    ["a bad fwmark", { probes: [{ name: "a", type: "icmp", target: "192.0.2.1", fwmark: "0x101", ...timing }] }, [/fwmark: must be an integer from 1 to 4294967295/]],
    [
      "duplicate names",
      { probes: [{ name: "a", type: "icmp", target: "192.0.2.1", ...timing }, { name: "a", type: "icmp", target: "192.0.2.2", ...timing }] },
      [/probes\[1\] \(a\): name: duplicate of probes\[0\]/],
    ],
  ];

  for (const [what, doc, expected] of bad) {
    it(`rejects ${what}`, () => {
      const problems = problemsOf(doc);
      for (const re of expected) expect(problems.some((p) => re.test(p)), `${re} in ${JSON.stringify(problems)}`).toBe(true);
    });
  }

  it("collects the problems of every probe in one error that names the file", () => {
    const err = (() => {
      try {
        parseHealthcheckConfig({ probes: [{ name: "a", type: "x" }, { name: "b", type: "icmp", target: "192.0.2.1", ...timing, fwmark: -1 }] }, "/etc/hc.json");
      } catch (e) {
        return e as ConfigError;
      }
      throw new Error("no error");
    })();
    expect(err.problems.some((p) => p.startsWith("probes[0] (a)"))).toBe(true);
    expect(err.problems.some((p) => p.startsWith("probes[1] (b): fwmark"))).toBe(true);
    expect(err.message).toMatch(/^\/etc\/hc\.json: \d+ problems:/);
  });
});

describe("parseHealthcheckConfigText / loadHealthcheckConfig", () => {
  const dir = mkdtempSync(join(tmpdir(), "rd-hc-config-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("reports JSON syntax errors as config errors", () => {
    expect(() => parseHealthcheckConfigText("{ probes: [", "x.json")).toThrow(/x\.json: 1 problem:\n {2}not valid JSON/);
  });

  it("loads a file and reports an unreadable one", async () => {
    const path = join(dir, "hc.json");
    writeFileSync(path, JSON.stringify({ probes: [{ name: "a", type: "icmp", target: "192.0.2.1", ...timing }] }));
    expect((await loadHealthcheckConfig(path)).probes).toHaveLength(1);
    await expect(loadHealthcheckConfig(join(dir, "missing.json"))).rejects.toThrow(/missing\.json: 1 problem:\n {2}cannot read: ENOENT/);
  });
});

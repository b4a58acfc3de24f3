import { describe, expect, it } from "vitest";
import { durationMs, formats, fwmarkValue, intToIpv4, ipv4InPrefix, ipv4Network, ipv4ToInt, parseIpv4Prefix, prefixesOverlap } from "./formats.js";
import { nearest, t, type ParseContext, type Schema } from "./schema.js";

function run<T>(schema: Schema<T>, value: unknown) {
  const ctx: ParseContext = { issues: [], refs: [] };
  const out = schema.parse(value, ["f"], ctx);
  return { out, messages: ctx.issues.map((i) => i.message), ctx };
}

describe("IPv4 arithmetic", () => {
  it.each([
    ["0.0.0.0", 0],
    ["192.168.1.1", 0xc0a80101],
    ["255.255.255.255", 0xffffffff],
  ])("%s ↔ %i", (addr, n) => {
    expect(ipv4ToInt(addr)).toBe(n);
    expect(intToIpv4(n)).toBe(addr);
  });

  it("networks, membership and overlap", () => {
    expect(ipv4Network(parseIpv4Prefix("192.168.1.77/24")!)).toBe("192.168.1.0");
    expect(ipv4Network(parseIpv4Prefix("10.1.2.3/0")!)).toBe("0.0.0.0");
    expect(ipv4Network(parseIpv4Prefix("10.1.2.3/32")!)).toBe("10.1.2.3");
    expect(ipv4InPrefix("10.1.255.1", parseIpv4Prefix("10.1.0.0/16")!)).toBe(true);
    expect(ipv4InPrefix("10.2.0.1", parseIpv4Prefix("10.1.0.0/16")!)).toBe(false);
    expect(prefixesOverlap(parseIpv4Prefix("10.0.0.0/8")!, parseIpv4Prefix("10.9.0.0/16")!)).toBe(true);
    expect(prefixesOverlap(parseIpv4Prefix("10.0.0.0/16")!, parseIpv4Prefix("10.1.0.0/16")!)).toBe(false);
  });

  it.each(["10.0.0.0", "10.0.0.0/33", "10.0.0/8", "a.b.c.d/8", "10.0.0.0/-1"])("parseIpv4Prefix(%j) is undefined", (v) => {
    expect(parseIpv4Prefix(v)).toBeUndefined();
  });
});

describe("value formats", () => {
  it.each([
    [formats.ipv4Cidr(), "default", "0.0.0.0/0", []],
    [formats.ipv4Cidr(), "10.0.0.0/8", "10.0.0.0/8", []],
    [formats.ipv4Cidr(), "10.0.0.1/8", undefined, ["10.0.0.1/8 has host bits set; the network is 10.0.0.0/8"]],
    [formats.ipv4Interface(), "192.0.2.1/24", "192.0.2.1/24", []],
    [formats.ipv4Interface(), "192.0.2.1", undefined, [expect.stringMatching(/with prefix length/)]],
    [formats.ipv4(), "192.0.2.300", undefined, ['"192.0.2.300" is not an IPv4 address']],
    [formats.ip(), "2001:db8::1", "2001:db8::1", []],
    [formats.mac(), "02:AA:00:00:00:01", "02:aa:00:00:00:01", []],
    [formats.ifname(), "a-very-long-ifname0", undefined, [expect.stringMatching(/Linux interface name/)]],
    [formats.duration(), "1500ms", "1500ms", []],
    [formats.duration(), "5 s", undefined, [expect.stringMatching(/a duration like/)]],
    [formats.sysctlKey(), "net.ipv4.conf.eth0.rp_filter", "net.ipv4.conf.eth0.rp_filter", []],
    [formats.sysctlKey(), "ip_forward", undefined, [expect.stringMatching(/sysctl key/)]],
    [formats.portOrRange(), 443, 443, []],
    [formats.portOrRange(), "1000-2000", "1000-2000", []],
    [formats.portOrRange(), "2000-1000", undefined, [expect.stringMatching(/a port \(1-65535\) or a range/)]],
    [formats.portOrRange(), 0, undefined, [expect.stringMatching(/a port/)]],
    [formats.fwmark(), "0x1ff", "0x1ff", []],
    [formats.fwmark(), "0xzz", undefined, [expect.stringMatching(/integer or a hex string/)]],
  ] as [Schema<unknown>, unknown, unknown, unknown[]][])("%#: %j → %j", (schema, input, out, messages) => {
    const r = run(schema, input);
    expect(r.out).toEqual(out);
    expect(r.messages).toEqual(messages);
  });

  it.each([
    ["500ms", 500],
    ["5s", 5000],
    ["2m", 120_000],
    ["1h", 3_600_000],
  ])("durationMs(%s) = %i", (v, ms) => {
    expect(durationMs(v)).toBe(ms);
  });

  it("fwmarkValue reads hex strings and integers alike", () => {
    expect(fwmarkValue("0x101")).toBe(257);
    expect(fwmarkValue(257)).toBe(257);
    expect(() => durationMs("soon")).toThrow(/bad duration/);
  });
});

describe("schema DSL", () => {
  const obj = t.object({
    name: t.string({ minLength: 1 }),
    count: t.withDefault(t.int({ min: 0 }), 3),
    tags: t.optional(t.array(t.string(), { unique: true, minItems: 1 })),
    mode: t.withDefault(t.enum("fast", "safe"), "safe"),
  });

  it("collects every issue of an object, not only the first", () => {
    const r = run(obj, { name: "", count: -1, tags: ["a", "a"], mode: "saf", extra: 1 });
    expect(r.out).toBeUndefined();
    expect(r.ctx.issues.map((i) => [i.path.join("."), i.message, i.hint])).toEqual([
      ["f.extra", 'unknown field "extra"', "known fields: name, count, tags, mode"],
      ["f.name", "must not be empty", undefined],
      ["f.count", "-1 is out of range 0..∞", undefined],
      ["f.tags.1", "duplicates item 0", undefined],
      ["f.mode", '"saf" is not one of fast, safe', 'did you mean "safe"?'],
    ]);
  });

  it("fills defaults and treats null as absent", () => {
    expect(run(obj, { name: "x", count: null }).out).toEqual({ name: "x", count: 3, mode: "safe" });
  });

  it("describes itself as JSON Schema with required fields and defaults", () => {
    expect(obj.jsonSchema()).toEqual({
      type: "object",
      additionalProperties: false,
      required: ["name"],
      properties: {
        name: { type: "string", minLength: 1 },
        count: { type: "integer", minimum: 0, default: 3 },
        tags: { type: "array", items: { type: "string" }, minItems: 1, uniqueItems: true },
        mode: { type: "string", enum: ["fast", "safe"], default: "safe" },
      },
    });
  });

  it("a reference records what it names and keeps its description in the JSON Schema", () => {
    const r = run(t.ref("Interface"), "wan");
    expect(r.ctx.refs).toEqual([{ path: ["f"], name: "wan", kinds: ["Interface"] }]);
    expect(t.ref("Interface").describe("uplink").jsonSchema()).toMatchObject({ type: "string", description: "uplink (name of an Interface resource)" });
    expect(t.ref("FirewallZone").jsonSchema()).toMatchObject({ description: "name of a FirewallZone resource" });
  });

  it("a union keeps only the references of the alternative that matched", () => {
    const zone = t.union<string>("self or a zone", t.string({ pattern: /^self$/ }), t.ref("FirewallZone"));
    expect(run(zone, "self").ctx.refs).toEqual([]);
    expect(run(zone, "lan").ctx.refs).toEqual([{ path: ["f"], name: "lan", kinds: ["FirewallZone"] }]);
    expect(run(zone, 5).messages).toEqual(["must be self or a zone"]);
  });

  it.each([
    ["ifnam", ["ifname", "mtu"], "ifname"],
    ["Interfce", ["Interface", "IPv4Route"], "Interface"],
    ["metdata", ["apiVersion", "kind", "metadata", "spec"], "metadata"],
    ["zzzzzz", ["ifname", "mtu"], undefined],
  ])("nearest(%s) = %s", (input, candidates, expected) => {
    expect(nearest(input, candidates)).toBe(expected);
  });
});

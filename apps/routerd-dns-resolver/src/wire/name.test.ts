import { describe, expect, it } from "vitest";
import { WireError } from "./errors.js";
import { canonicalCompare, isSubdomain, labelCount, nameEquals, nameFromText, nameKey, nameToText, readName, suffixKeys } from "./name.js";

const wire = (...parts: (number | string)[]): Buffer => Buffer.concat(parts.map((p) => (typeof p === "number" ? Buffer.from([p]) : Buffer.from(p, "latin1"))));

describe("names", () => {
  it("round-trips presentation form, escapes included", () => {
    for (const t of ["www.example.com.", ".", "a\\.b.example.", "x\\032y.example.", "_dmarc.example.", "*.wild.example."]) expect(nameToText(nameFromText(t))).toBe(t);
    expect(nameToText(nameFromText("no.trailing.dot"))).toBe("no.trailing.dot.");
  });

  it("rejects labels over 63 bytes, names over 255 and empty labels", () => {
    expect(() => nameFromText(`${"a".repeat(64)}.example`)).toThrow(WireError);
    expect(() => nameFromText(Array.from({ length: 5 }, () => "a".repeat(63)).join("."))).toThrow(/255/);
    expect(() => nameFromText("a..b")).toThrow(/empty label/);
  });

  it("follows backward compression pointers", () => {
    // example.com at 0, www -> pointer to 0 at 13.
    const msg = wire(7, "example", 3, "com", 0, 3, "www", 0xc0, 0);
    const [n, next] = readName(msg, 13);
    expect(nameToText(n)).toBe("www.example.com.");
    expect(next).toBe(msg.length);
  });

  it("refuses pointer loops, forward pointers and names that run off the end", () => {
    expect(() => readName(wire(0xc0, 0), 0)).toThrow(/backwards/);
    expect(() => readName(wire(1, "a", 0xc0, 0), 0)).toThrow(/backwards/);
    // Two pointers bouncing between each other.
    expect(() => readName(wire(1, "a", 0xc0, 4, 1, "b", 0xc0, 0), 4)).toThrow(/backwards/);
    expect(() => readName(wire(5, "ab"), 0)).toThrow(/past the end/);
    expect(() => readName(wire(0x40, 0), 0)).toThrow(/label type/);
  });

  it("compares case-insensitively and keys by the lower-cased form", () => {
    const a = nameFromText("WwW.ExAmPlE.");
    const b = nameFromText("www.example.");
    expect(nameEquals(a, b)).toBe(true);
    expect(nameKey(a)).toBe(nameKey(b));
    expect(isSubdomain(a, nameFromText("EXAMPLE."))).toBe(true);
    expect(isSubdomain(nameFromText("xexample."), nameFromText("example."))).toBe(false);
    expect(labelCount(a)).toBe(2);
    expect(suffixKeys(a).map((k) => nameToText(Buffer.from(k, "latin1")))).toEqual(["www.example.", "example.", "."]);
  });

  it("orders names canonically (RFC 4034 §6.1 example)", () => {
    const ordered = ["example.", "a.example.", "yljkjljk.a.example.", "Z.a.example.", "zABC.a.EXAMPLE.", "z.example.", "\\001.z.example.", "*.z.example.", "\\200.z.example."];
    const shuffled = [...ordered].reverse().map(nameFromText);
    shuffled.sort(canonicalCompare);
    expect(shuffled.map(nameToText).map((s) => s.toLowerCase())).toEqual(ordered.map((s) => nameToText(nameFromText(s)).toLowerCase()));
  });
});

import type { IngressTarget } from "@routerd/api";
import { describe, expect, it } from "vitest";
import { HASH_BUCKETS, apportion, hashRanges, randomRanges, type BucketRange } from "./ingress-buckets.js";
import { hashSeed } from "./ingress.js";

const target = (name: string, weight = 1): IngressTarget => ({ name, address: `192.0.2.${name.length}`, port: 80, weight });
const A = target("a");
const B = target("bb");
const C = target("ccc", 2);

/** Owner name of every bucket. */
const owners = (ranges: readonly BucketRange[]) => {
  const out: string[] = [];
  for (const r of ranges) for (let i = r.from; i <= r.to; i++) out[i] = r.target.name;
  return out;
};

describe("apportion", () => {
  it("splits exactly, in proportion, ties to the earlier part", () => {
    expect(apportion(256, [1, 1, 1])).toEqual([86, 85, 85]);
    expect(apportion(256, [1, 1, 2])).toEqual([64, 64, 128]);
    expect(apportion(10, [0, 3, 1])).toEqual([0, 8, 2]);
    expect(apportion(5, [0, 0])).toEqual([0, 0]);
  });
});

describe("sourceHash buckets", () => {
  it("cover every bucket once, by weight", () => {
    const o = owners(hashRanges([A, B, C], [A, B, C]));
    expect(o).toHaveLength(HASH_BUCKETS);
    expect(o.filter((n) => n === "ccc")).toHaveLength(128);
    expect(hashRanges([A, B, C], [A, B, C]).map((r) => [r.from, r.to, r.target.name])).toEqual([[0, 63, "a"], [64, 127, "bb"], [128, 255, "ccc"]]);
  });

  it("move only the failed backend's buckets, and give them back when it recovers", () => {
    const all = owners(hashRanges([A, B, C], [A, B, C]));
    const withoutB = owners(hashRanges([A, B, C], [A, C]));
    all.forEach((name, i) => {
      if (name !== "bb") expect(withoutB[i], `bucket ${i}`).toBe(name);
      else expect(["a", "ccc"]).toContain(withoutB[i]);
    });
    // B's 64 buckets go to A and C by weight (1:2).
    expect(withoutB.filter((n) => n === "a")).toHaveLength(64 + 21);
    expect(owners(hashRanges([A, B, C], [A, B, C]))).toEqual(all);
  });

  it("hands everything to weight-0 backups when every weighted backend is down", () => {
    const spare = target("spare", 0);
    expect(owners(hashRanges([A, spare], [A]))).toEqual(Array(HASH_BUCKETS).fill("a"));
    expect(owners(hashRanges([A, spare], [spare]))).toEqual(Array(HASH_BUCKETS).fill("spare"));
  });

  it("uses a fixed seed per service (nft would pick a random one on every table replace)", () => {
    expect(hashSeed("web")).toBe(hashSeed("web"));
    expect(hashSeed("web")).not.toBe(hashSeed("api"));
    expect(hashSeed("web")).toMatch(/^0x[0-9a-f]{8}$/);
  });
});

describe("random ranges", () => {
  it("give each active backend its weight's share of the modulus", () => {
    const r = randomRanges([A, C]);
    expect(r.modulus).toBe(3);
    expect(r.ranges.map((x) => [x.from, x.to, x.target.name])).toEqual([[0, 0, "a"], [1, 2, "ccc"]]);
  });
  it("share equally among backups", () => {
    const r = randomRanges([target("s1", 0), target("s2", 0)]);
    expect(r.modulus).toBe(2);
  });
});

// Random sources: crypto-backed for real use, seeded (mulberry32) for reproducible tests.
import { randomBytes } from "node:crypto";

export interface RandomSource {
  /** Uniform in [0, 1). */
  next(): number;
}

export const cryptoRandom: RandomSource = {
  next: () => randomBytes(4).readUInt32BE(0) / 0x1_0000_0000,
};

export function seededRandom(seed: number): RandomSource {
  let a = seed >>> 0;
  return {
    next() {
      a = (a + 0x6d2b79f5) >>> 0;
      let t = a;
      t = Math.imul(t ^ (t >>> 15), t | 1);
      t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
      return ((t ^ (t >>> 14)) >>> 0) / 0x1_0000_0000;
    },
  };
}

export function randomInt(rng: RandomSource, maxExclusive: number): number {
  return Math.floor(rng.next() * maxExclusive);
}

/** A fresh 24-bit transaction id. */
export function randomXid(rng: RandomSource): number {
  return randomInt(rng, 0x100_0000);
}

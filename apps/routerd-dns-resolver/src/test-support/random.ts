// A seeded PRNG (mulberry32) for reproducible fuzzing: a failure names its seed.
export type Rng = () => number;

export function seeded(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export const below = (rng: Rng, n: number): number => Math.floor(rng() * n);

export function randomBytes(rng: Rng, n: number): Buffer {
  const b = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) b[i] = below(rng, 256);
  return b;
}

/** Flips bytes, truncates, splices garbage, or rewrites length-like fields of a valid message. */
export function mutate(rng: Rng, seed: Buffer): Buffer {
  const b = Buffer.from(seed);
  switch (below(rng, 5)) {
    case 0:
      for (let i = 0, n = 1 + below(rng, 4); i < n; i++) b[below(rng, b.length)] = below(rng, 256);
      return b;
    case 1:
      return b.subarray(0, below(rng, b.length));
    case 2: {
      const at = below(rng, b.length);
      return Buffer.concat([b.subarray(0, at), randomBytes(rng, 1 + below(rng, 40)), b.subarray(at)]);
    }
    case 3: {
      // A compression pointer somewhere, pointing anywhere (loops included).
      const at = 12 + below(rng, Math.max(1, b.length - 13));
      if (at + 1 < b.length) {
        b[at] = 0xc0 | below(rng, 0x40);
        b[at + 1] = below(rng, 256);
      }
      return b;
    }
    default: {
      // A section count or an rdlength made huge.
      const at = below(rng, 2) === 0 ? 4 + 2 * below(rng, 4) : below(rng, Math.max(1, b.length - 1));
      if (at + 1 < b.length) b.writeUInt16BE(below(rng, 0x10000), at);
      return b;
    }
  }
}

// Unpredictable query ids (RFC 5452): two bytes at a time from a block of CSPRNG output.
import { randomFillSync } from "node:crypto";

const block = Buffer.allocUnsafe(4096);
let at = block.length;

export function randomId(): number {
  if (at + 2 > block.length) {
    randomFillSync(block);
    at = 0;
  }
  const id = (block[at]! << 8) | block[at + 1]!;
  at += 2;
  return id;
}

/** A uniformly random integer in [0, n) for small n. */
export function randomBelow(n: number): number {
  return (randomId() * 0x10000 + randomId()) % n;
}

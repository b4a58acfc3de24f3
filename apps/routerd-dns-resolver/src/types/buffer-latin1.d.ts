// Buffer's latin1 fast paths (on Buffer.prototype in every Node release since 0.x, untyped in @types/node):
// the hot path uses them to skip toString()/write()'s argument normalisation.
declare global {
  interface Buffer {
    latin1Slice(start: number, end: number): string;
    latin1Write(text: string, offset: number, length: number): number;
  }
}
export {};

/** A message that cannot be decoded (malformed, truncated, hostile). Never more than a FORMERR or a drop. */
export class WireError extends Error {
  override readonly name = "WireError";
}

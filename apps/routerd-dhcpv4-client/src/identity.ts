// Client identifier (option 61) from configuration, RFC 2132 §9.14.
import { HTYPE_ETHERNET } from "./codec.js";

const HEX_BYTES = /^[0-9a-f]{2}(:[0-9a-f]{2})+$/i;

/**
 * No value: type 1 + hardware address (what dhcpcd and udhcpc send).
 * "01:aa:bb:..." (colon-separated hex, two bytes or more): used as is, type byte included.
 * Anything else: type 0 followed by the text, as RFC 2132 suggests for non-hardware identifiers.
 */
export function clientIdFrom(value: string | Uint8Array | undefined, mac: Uint8Array): Uint8Array {
  if (value instanceof Uint8Array) {
    if (value.length < 2 || value.length > 255) throw new Error("client identifier must be 2..255 bytes");
    return value;
  }
  if (value === undefined || value === "") return Uint8Array.of(HTYPE_ETHERNET, ...mac);
  if (HEX_BYTES.test(value)) return Uint8Array.from(value.split(":").map((h) => parseInt(h, 16)));
  const bytes = Buffer.from(value, "utf8");
  if (bytes.length > 254) throw new Error("client identifier text longer than 254 bytes");
  return Uint8Array.of(0, ...bytes);
}

export function toHex(bytes: Uint8Array): string {
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join(":");
}

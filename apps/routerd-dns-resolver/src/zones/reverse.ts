// Reverse names: 4.3.2.1.in-addr.arpa. for 1.2.3.4, nibbles under ip6.arpa. for IPv6 (RFC 1035 §3.5,
// RFC 3596 §2.5).
import { TYPE } from "../wire/constants.js";
import { nameFromText, type Name } from "../wire/name.js";

/** The PTR owner name for an A (4 bytes) or AAAA (16 bytes) record's data. */
export function reverseName(type: number, data: Uint8Array): Name {
  if (type === TYPE.A) return nameFromText(`${Array.from(data).reverse().join(".")}.in-addr.arpa.`);
  const nibbles: string[] = [];
  for (let i = data.length - 1; i >= 0; i--) nibbles.push((data[i]! & 0xf).toString(16), (data[i]! >> 4).toString(16));
  return nameFromText(`${nibbles.join(".")}.ip6.arpa.`);
}

/**
 * The reverse zone of a CIDR on octet (IPv4) or nibble (IPv6) boundaries: 192.168.1.0/24 →
 * 1.168.192.in-addr.arpa. Other lengths round down to the enclosing boundary.
 */
export function reverseZoneOf(cidr: string): string {
  const [addr = "", lenText = ""] = cidr.split("/");
  const len = Number(lenText);
  if (addr.includes(":")) {
    const nibbles = Math.floor(len / 4);
    const hex = expandIpv6(addr);
    return `${hex.slice(0, nibbles).split("").reverse().join(".")}${nibbles > 0 ? "." : ""}ip6.arpa.`;
  }
  const octets = addr.split(".").slice(0, Math.floor(len / 8));
  return `${octets.reverse().join(".")}${octets.length > 0 ? "." : ""}in-addr.arpa.`;
}

function expandIpv6(addr: string): string {
  const [head = "", tail] = addr.split("::") as [string, string?];
  const hw = head === "" ? [] : head.split(":");
  const tw = tail === undefined || tail === "" ? [] : tail.split(":");
  const words = tail === undefined ? hw : [...hw, ...new Array<string>(8 - hw.length - tw.length).fill("0"), ...tw];
  return words.map((w) => w.padStart(4, "0")).join("");
}

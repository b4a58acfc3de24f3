// Trust anchors: DS or DNSKEY records in presentation form ("example. IN DS 12345 13 2 AB..."), the root
// zone's key-signing keys by default (KSK-2017 and KSK-2024, from IANA's root-anchors.xml).
import { TYPE, typeFromName } from "../wire/constants.js";
import { nameFromText, nameKey, type Name } from "../wire/name.js";
import { parseDnskey, type Dnskey, type Ds } from "./records.js";

export interface TrustAnchor {
  owner: Name;
  ds: Ds[];
  keys: Dnskey[];
}

export const ROOT_ANCHORS = [
  ". IN DS 20326 8 2 E06D44B80B8F1D39A95C0B0D7C65D08458E880409BBC683457104237C7F8EC8D",
  ". IN DS 38696 8 2 683D2D0ACB8C9B712A1948B27F741219298D0A450D612C483AF444A4C0FB2B16",
];

/** Parses one anchor line; throws with what is wrong. */
export function parseAnchor(line: string): { owner: Name; ds?: Ds; key?: Dnskey } {
  const tokens = line.trim().split(/\s+/);
  const owner = nameFromText(tokens.shift() ?? "");
  // Optional TTL and class before the type.
  while (tokens.length > 0 && (/^\d+$/.test(tokens[0]!) || /^(IN|CH|HS)$/i.test(tokens[0]!))) tokens.shift();
  const type = typeFromName(tokens.shift() ?? "");
  if (type === TYPE.DS) {
    const [tag, alg, digestType, ...hex] = tokens;
    const digest = Buffer.from(hex.join(""), "hex");
    if (!tag || !alg || !digestType || digest.length === 0) throw new Error(`DS anchor needs "KEYTAG ALGORITHM DIGESTTYPE DIGEST": ${line}`);
    return { owner, ds: { keyTag: Number(tag), algorithm: Number(alg), digestType: Number(digestType), digest } };
  }
  if (type === TYPE.DNSKEY) {
    const [flags, protocol, alg, ...b64] = tokens;
    const pk = Buffer.from(b64.join(""), "base64");
    if (!flags || !protocol || !alg || pk.length === 0) throw new Error(`DNSKEY anchor needs "FLAGS PROTOCOL ALGORITHM KEY": ${line}`);
    const data = Buffer.concat([Buffer.from([Number(flags) >> 8, Number(flags) & 0xff, Number(protocol), Number(alg)]), pk]);
    return { owner, key: parseDnskey(data) };
  }
  throw new Error(`a trust anchor is a DS or DNSKEY record: ${line}`);
}

/** Anchors by owner key. */
export function buildAnchors(lines: readonly string[]): Map<string, TrustAnchor> {
  const out = new Map<string, TrustAnchor>();
  for (const line of lines.length > 0 ? lines : ROOT_ANCHORS) {
    const a = parseAnchor(line);
    const key = nameKey(a.owner);
    const entry = out.get(key) ?? { owner: a.owner, ds: [], keys: [] };
    if (a.ds) entry.ds.push(a.ds);
    if (a.key) entry.keys.push(a.key);
    out.set(key, entry);
  }
  return out;
}

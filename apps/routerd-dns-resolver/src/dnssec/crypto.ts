// Signature verification per DNSSEC algorithm (a registry: number → key import and verify), and DS digests.
// Keys come in DNSKEY wire form and are imported through JWK, which Node takes for RSA, EC and OKP keys.
import { createHash, createPublicKey, verify, type KeyObject } from "node:crypto";
import { lowerName, type Name } from "../wire/name.js";

interface Algorithm {
  name: string;
  /** Node's digest name for verify(); null for EdDSA. */
  hash: string | null;
  key(publicKey: Buffer): KeyObject;
  /** ECDSA signatures are r||s (IEEE P1363), not DER. */
  dsaEncoding?: "ieee-p1363";
}

const b64u = (b: Buffer): string => b.toString("base64url");

/** RFC 3110: exponent length (1 byte, or 0 then 2 bytes), exponent, modulus. */
function rsaKey(pk: Buffer): KeyObject {
  let at = 1;
  let expLen = pk[0]!;
  if (expLen === 0) {
    expLen = pk.readUInt16BE(1);
    at = 3;
  }
  const e = pk.subarray(at, at + expLen);
  const n = pk.subarray(at + expLen);
  return createPublicKey({ key: { kty: "RSA", e: b64u(e), n: b64u(n) }, format: "jwk" });
}

const ecKey =
  (crv: "P-256" | "P-384", size: number) =>
  (pk: Buffer): KeyObject => {
    if (pk.length !== size * 2) throw new Error(`${crv} key of ${pk.length} bytes`);
    return createPublicKey({ key: { kty: "EC", crv, x: b64u(pk.subarray(0, size)), y: b64u(pk.subarray(size)) }, format: "jwk" });
  };

const okpKey =
  (crv: "Ed25519" | "Ed448") =>
  (pk: Buffer): KeyObject =>
    createPublicKey({ key: { kty: "OKP", crv, x: b64u(pk) }, format: "jwk" });

/** IANA DNSSEC algorithm numbers we validate. */
export const ALGORITHMS = new Map<number, Algorithm>([
  [5, { name: "RSASHA1", hash: "sha1", key: rsaKey }],
  [7, { name: "RSASHA1-NSEC3-SHA1", hash: "sha1", key: rsaKey }],
  [8, { name: "RSASHA256", hash: "sha256", key: rsaKey }],
  [10, { name: "RSASHA512", hash: "sha512", key: rsaKey }],
  [13, { name: "ECDSAP256SHA256", hash: "sha256", key: ecKey("P-256", 32), dsaEncoding: "ieee-p1363" }],
  [14, { name: "ECDSAP384SHA384", hash: "sha384", key: ecKey("P-384", 48), dsaEncoding: "ieee-p1363" }],
  [15, { name: "ED25519", hash: null, key: okpKey("Ed25519") }],
  [16, { name: "ED448", hash: null, key: okpKey("Ed448") }],
]);

export function supportedAlgorithm(alg: number): boolean {
  return ALGORITHMS.has(alg);
}

const keyCache = new Map<string, KeyObject>();
const KEY_CACHE_LIMIT = 256;

/** True when `signature` over `data` verifies with the DNSKEY public key; false on any failure. */
export function verifySignature(algorithm: number, publicKey: Buffer, data: Buffer, signature: Buffer): boolean {
  const alg = ALGORITHMS.get(algorithm);
  if (alg === undefined) return false;
  try {
    const id = `${algorithm}:${publicKey.toString("base64")}`;
    let key = keyCache.get(id);
    if (key === undefined) {
      key = alg.key(publicKey);
      if (keyCache.size >= KEY_CACHE_LIMIT) keyCache.clear();
      keyCache.set(id, key);
    }
    return verify(alg.hash, data, alg.dsaEncoding ? { key, dsaEncoding: alg.dsaEncoding } : key, signature);
  } catch {
    return false;
  }
}

const DIGESTS = new Map<number, string>([
  [1, "sha1"],
  [2, "sha256"],
  [4, "sha384"],
]);

export function supportedDigest(type: number): boolean {
  return DIGESTS.has(type);
}

/** RFC 4034 §5.1.4: digest = hash(canonical owner name | DNSKEY RDATA). */
export function dsDigest(owner: Name, dnskeyData: Buffer, digestType: number): Buffer | undefined {
  const h = DIGESTS.get(digestType);
  if (h === undefined) return undefined;
  return createHash(h).update(lowerName(owner)).update(dnskeyData).digest();
}

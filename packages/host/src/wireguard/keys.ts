// WireGuard keys stay in their files. routerd reads a private key only to derive its public key (the
// fingerprint plans, status and the ledger show) and a preshared key only to fingerprint it.
import { createHash, createPrivateKey, createPublicKey } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { rooted, type HostContext } from "../context.js";

// PKCS#8 wrapping of a raw X25519 private key (RFC 8410), so node:crypto can derive the public key.
const X25519_PKCS8_PREFIX = Buffer.from("302e020100300506032b656e04220420", "hex");

const KEY = /^[A-Za-z0-9+/]{43}=$/;

/** The public key of a base64 WireGuard private key. */
export function wireGuardPublicKey(privateKeyBase64: string): string {
  const raw = Buffer.from(privateKeyBase64.trim(), "base64");
  if (raw.length !== 32) throw new Error("not a 32-byte base64 key");
  const key = createPrivateKey({ key: Buffer.concat([X25519_PKCS8_PREFIX, raw]), format: "der", type: "pkcs8" });
  return createPublicKey(key).export({ format: "der", type: "spki" }).subarray(-32).toString("base64");
}

/** A short, one-way fingerprint of a preshared key (what plans and the ledger compare). */
export function keyFingerprint(keyBase64: string): string {
  return `sha256:${createHash("sha256").update(Buffer.from(keyBase64.trim(), "base64")).digest("hex").slice(0, 16)}`;
}

/**
 * Reads a key file (path as in the config, under the host root): it must exist, hold one base64 key and be
 * readable by its owner only. Errors say what to do; they never contain the key.
 */
export function readKeyFile(ctx: Pick<HostContext, "root">, path: string, what: string): string {
  const file = rooted(ctx, path);
  let mode: number;
  try {
    mode = statSync(file).mode & 0o777;
  } catch {
    throw new Error(`${what} ${path} does not exist: create it with (umask 077; wg ${what === "presharedKeyFile" ? "genpsk" : "genkey"} > ${path})`);
  }
  if (mode & 0o077) throw new Error(`${what} ${path} is readable by others (mode ${mode.toString(8).padStart(4, "0")}): chmod 600 ${path}`);
  const text = readFileSync(file, "utf8").trim();
  if (!KEY.test(text) || Buffer.from(text, "base64").length !== 32) throw new Error(`${what} ${path} does not hold a base64 WireGuard key (wg genkey / wg genpsk write one)`);
  return text;
}

/** What the desired state carries instead of keys: the public key, or the preshared key's fingerprint, or why not. */
export function keyFacts(ctx: Pick<HostContext, "root">, path: string, what: "privateKeyFile" | "presharedKeyFile"): { value: string } | { error: string } {
  try {
    const key = readKeyFile(ctx, path, what);
    return { value: what === "privateKeyFile" ? wireGuardPublicKey(key) : keyFingerprint(key) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

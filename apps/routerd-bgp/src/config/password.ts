// passwordFrom {file, env, base64}: the TCP MD5 password is read by the daemon when it applies the config,
// so it never appears in routerd's config cache or in the daemon's config file.
import { readFile } from "node:fs/promises";
import type { BGPPeerSpec } from "@routerd/api";

export async function resolvePassword(spec: BGPPeerSpec, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  if (spec.password !== undefined) return spec.password;
  const from = spec.passwordFrom;
  if (from === undefined) return "";
  let raw: string;
  if (from.file !== undefined) {
    raw = (await readFile(from.file, "utf8")).replace(/\r?\n$/, "");
  } else if (from.env !== undefined) {
    const v = env[from.env];
    if (v === undefined) throw new Error(`environment variable ${from.env} (passwordFrom.env) is not set`);
    raw = v;
  } else {
    throw new Error("passwordFrom needs file or env");
  }
  if (!from.base64) return raw;
  const decoded = Buffer.from(raw.trim(), "base64").toString("utf8");
  if (decoded.length === 0) throw new Error("passwordFrom: base64 value decodes to an empty password");
  return decoded;
}

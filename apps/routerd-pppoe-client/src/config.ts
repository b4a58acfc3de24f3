// The daemon's config file (written by `routerd serve` from the PPPoESession resource, mode 0600): its type
// and a strict parser. Every problem is collected; unknown fields are errors.
import { readFile } from "node:fs/promises";
import { isAbsolute } from "node:path";
import { ConfigError } from "@routerd/daemon-kit/cli";

export const AUTH_METHODS = ["chap", "pap", "both"] as const;
export type AuthMethod = (typeof AUTH_METHODS)[number];

export interface SessionConfig {
  /** The Ethernet interface PPPoE discovery runs on. */
  interface: string;
  /** The PPP interface pppd creates (`ifname`). */
  ifname: string;
  username: string;
  /** Exactly one of password and passwordFile; the file is read before every dial. */
  password?: string;
  passwordFile?: string;
  authMethod: AuthMethod;
  mtu?: number;
  mru?: number;
  ipv6: boolean;
  /** Ask the peer for DNS servers (IPCP); they are reported, routerd decides whether to use them. */
  usePeerDNS: boolean;
  /** LCP echo: dead-peer detection after lcpEchoFailure unanswered echoes, one every lcpEchoInterval s. */
  lcpEchoInterval: number;
  lcpEchoFailure: number;
  /** Redial after a session or attempt ends (with back-off). */
  persist: boolean;
  acName?: string;
  serviceName?: string;
}

export { ConfigError };

export const IFNAME = /^[A-Za-z0-9_][A-Za-z0-9_.:@-]{0,14}$/;
/** pppd's option and secrets files cannot carry control characters (a newline would end the entry). */
const PRINTABLE = /^[^\u0000-\u001f\u007f]+$/;

type Check = (value: unknown) => string | undefined;
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const bool: Check = (v) => (typeof v === "boolean" ? undefined : "must be true or false");
const int =
  (min: number, max: number): Check =>
  (v) =>
    Number.isInteger(v) && (v as number) >= min && (v as number) <= max ? undefined : `must be an integer from ${min} to ${max}`;
const text =
  (max: number): Check =>
  (v) =>
    typeof v === "string" && v.length <= max && PRINTABLE.test(v) ? undefined : `must be 1 to ${max} printable characters`;
const ifname: Check = (v) => (typeof v === "string" && IFNAME.test(v) ? undefined : "must be a Linux interface name (up to 15 characters)");
const absolute: Check = (v) => (typeof v === "string" && isAbsolute(v) ? undefined : "must be an absolute path");
const oneOf =
  (values: readonly string[]): Check =>
  (v) =>
    typeof v === "string" && values.includes(v) ? undefined : `must be one of ${values.join(", ")}`;

const FIELDS: Record<keyof SessionConfig, { check: Check; required: boolean }> = {
  interface: { check: ifname, required: true },
  ifname: { check: ifname, required: true },
  username: { check: text(255), required: true },
  password: { check: text(255), required: false },
  passwordFile: { check: absolute, required: false },
  authMethod: { check: oneOf(AUTH_METHODS), required: true },
  mtu: { check: int(576, 1500), required: false },
  mru: { check: int(576, 1500), required: false },
  ipv6: { check: bool, required: true },
  usePeerDNS: { check: bool, required: true },
  lcpEchoInterval: { check: int(0, 3600), required: true },
  lcpEchoFailure: { check: int(0, 1000), required: true },
  persist: { check: bool, required: true },
  acName: { check: text(255), required: false },
  serviceName: { check: text(255), required: false },
};

export function parseSessionConfig(value: unknown, source = "config"): SessionConfig {
  if (!isObject(value)) throw new ConfigError(["the config must be a JSON object"], source);
  const problems: string[] = [];
  for (const key of Object.keys(value)) {
    if (!Object.hasOwn(FIELDS, key)) problems.push(`${key}: unknown field (known: ${Object.keys(FIELDS).join(", ")})`);
  }
  for (const [key, { check, required }] of Object.entries(FIELDS)) {
    if (value[key] === undefined) {
      if (required) problems.push(`${key}: required`);
      continue;
    }
    const problem = check(value[key]);
    if (problem) problems.push(`${key}: ${problem}`);
  }
  if ((value.password === undefined) === (value.passwordFile === undefined)) problems.push("password, passwordFile: give exactly one of them");
  if (problems.length) throw new ConfigError(problems, source);
  return value as unknown as SessionConfig;
}

export async function loadSessionConfig(path: string): Promise<SessionConfig> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (err) {
    throw new ConfigError([`cannot read: ${(err as Error).message}`], path);
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    throw new ConfigError([`not JSON: ${(err as Error).message}`], path);
  }
  return parseSessionConfig(json, path);
}

/** The password for the next dial: inline, or the first line of passwordFile (read every time: rotation works). */
export async function readPassword(config: SessionConfig): Promise<string> {
  if (config.password !== undefined) return config.password;
  const raw = await readFile(config.passwordFile!, "utf8");
  const password = raw.split(/\r?\n/, 1)[0] ?? "";
  if (!password || !PRINTABLE.test(password)) throw new Error(`${config.passwordFile}: the first line must hold the password (printable characters)`);
  return password;
}

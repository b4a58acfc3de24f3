// Real peers for the DNS namespace tests: unbound serving test zones (auth-zone) over UDP/TCP, DNS over TLS
// and DNS over HTTPS with a test CA made by openssl; zones signed with ldns-signzone; kdig as the client;
// routerd-dns-resolver started directly with a config of the test's own.
import { execFileSync, type ChildProcess } from "node:child_process";
import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { Lab } from "../lib/lab.js";
import { until } from "../lib/serve.js";

const ROOT = new URL("../../", import.meta.url).pathname;
export const RESOLVER = join(ROOT, "apps/routerd-dns-resolver/bin/routerd-dns-resolver.js");

function run(argv: string[], cwd?: string): string {
  return execFileSync(argv[0]!, argv.slice(1), { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], ...(cwd ? { cwd } : {}) });
}

export interface TestCa {
  ca: string;
  cert: string;
  key: string;
}

/** A CA and a server certificate for `names` (DNS) and `ips` (IP SANs), ECDSA P-256, valid two days. */
export function makeCa(dir: string, names: string[], ips: string[]): TestCa {
  const p = (f: string) => join(dir, f);
  run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", p("ca.key"), "-out", p("ca.pem"), "-days", "2", "-subj", "/CN=routerd test CA"]);
  run(["openssl", "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", p("server.key"), "-out", p("server.csr"), "-subj", `/CN=${names[0]}`]);
  writeFileSync(p("ext.cnf"), `subjectAltName=${[...names.map((n) => `DNS:${n}`), ...ips.map((i) => `IP:${i}`)].join(",")}\nextendedKeyUsage=serverAuth\n`);
  run(["openssl", "x509", "-req", "-in", p("server.csr"), "-CA", p("ca.pem"), "-CAkey", p("ca.key"), "-CAcreateserial", "-out", p("server.pem"), "-days", "2", "-extfile", p("ext.cnf")]);
  return { ca: p("ca.pem"), cert: p("server.pem"), key: p("server.key") };
}

export interface SignedZone {
  file: string;
  /** The KSK's DS record in presentation form (the trust anchor). */
  ds: string;
}

/** Signs a zone with a fresh ECDSA P-256 KSK and ZSK (NSEC, or NSEC3 when asked). */
export function signZone(dir: string, origin: string, text: string, opts: { nsec3?: boolean } = {}): SignedZone {
  const zone = join(dir, `${origin}zone`);
  writeFileSync(zone, text);
  const ksk = run(["ldns-keygen", "-a", "ECDSAP256SHA256", "-k", origin], dir).trim();
  const zsk = run(["ldns-keygen", "-a", "ECDSAP256SHA256", origin], dir).trim();
  run(["ldns-signzone", ...(opts.nsec3 ? ["-n", "-s", "ab12"] : []), "-f", `${zone}.signed`, zone, ksk, zsk], dir);
  const ds = readFileSync(join(dir, `${ksk}.ds`), "utf8").trim();
  return { file: `${zone}.signed`, ds };
}

export interface UnboundOptions {
  addresses: string[];
  zones: { name: string; file: string }[];
  tls?: TestCa;
  /** Also serve DNS over TLS on 853 and DNS over HTTPS on 443 (needs tls). */
  encrypted?: boolean;
}

/** unbound as an authoritative test server (auth-zone for-downstream), one thread, in the foreground. */
export async function startUnbound(lab: Lab, ns: string, name: string, o: UnboundOptions): Promise<ChildProcess> {
  const dir = lab.path(`unbound-${name}`);
  execFileSync("mkdir", ["-p", dir]);
  const ifaces = o.addresses.flatMap((a) => [`  interface: ${a}`, ...(o.encrypted ? [`  interface: ${a}@853`, `  interface: ${a}@443`] : [])]);
  const conf = [
    "server:",
    '  username: ""',
    '  chroot: ""',
    `  directory: "${dir}"`,
    '  pidfile: ""',
    "  use-syslog: no",
    '  logfile: ""',
    "  verbosity: 1",
    "  num-threads: 1",
    ...ifaces,
    "  access-control: 0.0.0.0/0 allow",
    '  module-config: "iterator"',
    // .test is one of unbound's built-in blocked zones.
    '  local-zone: "test." nodefault',
    "  msg-buffer-size: 65552",
    ...(o.tls ? [`  tls-service-key: "${o.tls.key}"`, `  tls-service-pem: "${o.tls.cert}"`, "  tls-port: 853", "  https-port: 443", '  http-endpoint: "/dns-query"'] : []),
    ...o.zones.flatMap((z) => ["auth-zone:", `  name: "${z.name}"`, `  zonefile: "${z.file}"`, "  for-downstream: yes", "  for-upstream: no"]),
    "remote-control:",
    "  control-enable: no",
    "",
  ].join("\n");
  const path = join(dir, "unbound.conf");
  writeFileSync(path, conf);
  run(["unbound-checkconf", path]);
  const child = lab.spawn(ns, ["unbound", "-d", "-c", path]);
  const log: string[] = [];
  child.stderr?.on("data", (b: Buffer) => log.push(b.toString()));
  child.stdout?.on("data", (b: Buffer) => log.push(b.toString()));
  const probe = o.zones[0]?.name ?? ".";
  try {
    await until(`unbound ${name} answering on ${o.addresses[0]}`, () => kdig(lab, ns, [`@${o.addresses[0]}`, probe, "SOA", "+timeout=1", "+retry=0"]).status === "NOERROR", 15_000, 200);
  } catch (err) {
    throw new Error(`${(err as Error).message}; unbound said: ${log.join("").slice(-2000)}`);
  }
  return child;
}

export interface KdigRecord {
  name: string;
  ttl: number;
  type: string;
  data: string;
}

export interface KdigResult {
  status: string;
  flags: string[];
  answer: KdigRecord[];
  authority: KdigRecord[];
  /** Extended DNS error info code, when the answer carries one. */
  ede?: number;
  /** The round trip kdig measured (its own start-up excluded). */
  ms: number;
  text: string;
}

function parseRecord(line: string): KdigRecord {
  const [name = "", ttl = "0", , type = "", ...data] = line.trim().split(/\s+/);
  return { name, ttl: Number(ttl), type, data: data.join(" ") };
}

/** kdig in a namespace, its answer parsed (status, flags, sections, EDE). */
export function kdig(lab: Lab, ns: string, args: string[]): KdigResult {
  let text: string;
  try {
    text = execFileSync("ip", ["netns", "exec", ns, "kdig", "+nocookie", ...args], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  } catch (err) {
    text = String((err as { stdout?: string }).stdout ?? "");
  }
  const status = /status: (\w+)/.exec(text)?.[1] ?? "TIMEOUT";
  const flags = (/;; Flags: ([^;]*);/.exec(text)?.[1] ?? "").trim().split(/\s+/).filter(Boolean);
  const section = (title: string): KdigRecord[] => {
    const m = new RegExp(`;; ${title} SECTION:\\n([\\s\\S]*?)(\\n\\n|$)`).exec(text);
    return (m?.[1] ?? "").split("\n").filter((l) => l.trim() && !l.startsWith(";")).map(parseRecord);
  };
  const ede = /EDE: (\d+)/.exec(text)?.[1];
  const ms = Number(/;; From .* in ([\d.]+) ms/.exec(text)?.[1] ?? NaN);
  void lab;
  return { status, flags, answer: section("ANSWER"), authority: section("AUTHORITY"), ...(ede !== undefined ? { ede: Number(ede) } : {}), ms, text };
}

/** Starts routerd-dns-resolver with this config in a namespace and waits for its socket. */
export async function startResolver(lab: Lab, ns: string, config: object, opts: { instance?: string; env?: NodeJS.ProcessEnv } = {}): Promise<{ child: ChildProcess; configPath: string; runDir: string; log: string[] }> {
  const instance = opts.instance ?? "lan";
  const configPath = lab.path(`resolver-${instance}.json`);
  writeFileSync(configPath, JSON.stringify(config, null, 2));
  const runDir = lab.path("run");
  const child = lab.spawn(ns, [process.execPath, RESOLVER, "--config", configPath, "--instance", instance, "--run-dir", runDir, "--state-dir", lab.path("state"), "--log-level", "warn"], { ...process.env, ...opts.env });
  const log: string[] = [];
  child.stdout?.on("data", (b: Buffer) => log.push(b.toString()));
  child.stderr?.on("data", (b: Buffer) => log.push(b.toString()));
  await until(`resolver socket (log: ${log.join("")})`, () => {
    try {
      return readdirSync(join(runDir, "dns-resolver")).includes(`${instance}.sock`);
    } catch {
      return false;
    }
  }, 20_000, 100);
  await until(`resolver listeners bound (log: ${log.join("")})`, () => listenersBound(ns, config), 20_000, 100);
  return { child, configPath, runDir, log };
}

/**
 * Every listener address of `config` bound in `ns`, UDP and TCP: the daemon's gRPC socket comes up before its DNS
 * sockets, and a test's first query sent in between goes unanswered (a TIMEOUT on a loaded machine).
 */
function listenersBound(ns: string, config: object): boolean {
  const listen = (config as { listen?: { addresses: string[]; port?: number }[] }).listen ?? [];
  const bound = execFileSync("ip", ["netns", "exec", ns, "ss", "-Hlnut"], { encoding: "utf8" })
    .split("\n")
    .map((line) => line.trim().split(/\s+/))
    .map(([proto, , , , local]) => `${proto} ${local}`);
  return listen.every((l) =>
    l.addresses.every((a) => ["udp", "tcp"].every((proto) => bound.includes(`${proto} ${a.includes(":") ? `[${a}]` : a}:${l.port ?? 53}`))),
  );
}

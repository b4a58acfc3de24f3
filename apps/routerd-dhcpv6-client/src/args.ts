// Command line of the standalone client. Pure: returns options or every problem found.
import { parseArgs } from "node:util";
import type { DuidType } from "./duid.js";
import type { PrefixHint } from "./fsm-types.js";
import { formatIpv6, maskPrefix, parseIpv6 } from "./wire.js";

export const USAGE = `usage: routerd-dhcpv6-client --instance NAME --interface IF [--run-dir DIR] [--state-dir DIR] [options]
       routerd-dhcpv6-client --interface IF --state-dir DIR [options]      (standalone: events on stdout)
  --instance NAME          daemon form: socket <run-dir>/dhcpv6-client/NAME.sock, state in
                           <state-dir>/dhcpv6-client/NAME/ (defaults /run/routerd, /var/lib/routerd)
  --run-dir DIR            daemon form only
  --prefix-length N        prefix length to ask for (hint), e.g. 56
  --hint PREFIX/LEN        ask for this prefix (default: the last delegated prefix)
  --ia-na                  also ask for an address (IA_NA)
  --no-pd                  do not ask for a prefix (with --ia-na)
  --info-only              stateless: Information-request only (DNS, search list, AFTR, SNTP)
  --no-release             do not send RELEASE on SIGTERM
  --duid-type ll|llt|en    DUID type when none is stored yet (default ll)
  --enterprise-number N    enterprise number for DUID-EN (default 32473, the documentation number)
  --iaid N                 IAID for IA_PD and IA_NA (default 1)
  --no-rapid-commit        do not offer Rapid Commit
  --solicit-delay-max MS   random 0..MS delay before the first Solicit (default 0)
  --release-timeout MS     how long SIGTERM waits for the RELEASE reply (default 5000)
  --log-level LEVEL        pino level for stderr (default info)
Standalone: events are printed to stdout, one JSON object per line. Daemon form: events, status and the
binding over the socket (routerctl). SIGUSR1 renews now; SIGTERM releases (unless --no-release) and exits.`;

export interface CliOptions {
  interface: string;
  /** Standalone: the engine's own dir. Daemon form: the base dir (the engine uses <dir>/dhcpv6-client/<instance>). */
  stateDir: string;
  /** Set in the daemon form. */
  daemon?: { instance: string; runDir: string };
  prefixLength?: number;
  hint?: PrefixHint;
  requestAddress: boolean;
  prefixDelegation: boolean;
  informationOnly: boolean;
  releaseOnStop: boolean;
  duidType: DuidType;
  enterpriseNumber?: number;
  iaid: number;
  rapidCommit: boolean;
  solicitMaxDelayMs: number;
  releaseTimeoutMs: number;
  logLevel: string;
}

export type CliResult = { ok: true; options: CliOptions } | { ok: false; errors: string[] } | { ok: false; help: true };

// As in @routerd/rpc (socket-path.ts); not imported, so the standalone form does not load gRPC.
const DEFAULT_RUN_DIR = "/run/routerd";
const DEFAULT_STATE_DIR = "/var/lib/routerd";
const isValidDaemonName = (name: string) => /^[A-Za-z0-9][A-Za-z0-9_.@-]{0,63}$/.test(name);

const LOG_LEVELS = new Set(["trace", "debug", "info", "warn", "error", "fatal", "silent"]);
const DUID_TYPES = new Set<DuidType>(["ll", "llt", "en"]);

export function parsePrefix(text: string): PrefixHint | undefined {
  const m = /^([0-9a-fA-F:.]+)\/(\d{1,3})$/.exec(text.trim());
  if (!m) return undefined;
  const addr = parseIpv6(m[1]!);
  const length = Number(m[2]);
  if (!addr || length > 128) return undefined;
  return { prefix: formatIpv6(maskPrefix(addr, length)), length };
}

function intOption(errors: string[], name: string, raw: string | undefined, min: number, max: number): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || n < min || n > max) {
    errors.push(`--${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`);
    return undefined;
  }
  return n;
}

export function parseCliArgs(argv: string[]): CliResult {
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        interface: { type: "string" },
        instance: { type: "string" },
        "run-dir": { type: "string" },
        "state-dir": { type: "string" },
        "prefix-length": { type: "string" },
        hint: { type: "string" },
        "ia-na": { type: "boolean" },
        "no-pd": { type: "boolean" },
        "info-only": { type: "boolean" },
        "no-release": { type: "boolean" },
        "duid-type": { type: "string" },
        "enterprise-number": { type: "string" },
        iaid: { type: "string" },
        "no-rapid-commit": { type: "boolean" },
        "solicit-delay-max": { type: "string" },
        "release-timeout": { type: "string" },
        "log-level": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (err) {
    return { ok: false, errors: [(err as Error).message] };
  }
  if (values.help) return { ok: false, help: true };
  const errors: string[] = [];
  const str = (k: string) => (typeof values[k] === "string" ? (values[k] as string) : undefined);
  const iface = str("interface");
  const instance = str("instance");
  const stateDir = str("state-dir") ?? (instance !== undefined ? DEFAULT_STATE_DIR : undefined);
  if (!iface) errors.push("--interface is required");
  else if (!/^[A-Za-z0-9_.:@-]{1,15}$/.test(iface)) errors.push(`--interface ${JSON.stringify(iface)} is not a valid interface name`);
  if (!stateDir) errors.push("--state-dir is required (or --instance for the daemon form)");
  if (instance !== undefined && !isValidDaemonName(instance)) errors.push(`--instance ${JSON.stringify(instance)} must be 1-64 characters from A-Z a-z 0-9 _ . @ - starting with a letter or digit`);
  if (instance === undefined && str("run-dir") !== undefined) errors.push("--run-dir needs --instance (the daemon form)");
  const prefixLength = intOption(errors, "prefix-length", str("prefix-length"), 1, 128);
  let hint: PrefixHint | undefined;
  if (str("hint") !== undefined) {
    hint = parsePrefix(str("hint")!);
    if (!hint) errors.push(`--hint must be PREFIX/LEN, got ${JSON.stringify(str("hint"))}`);
    else if (prefixLength !== undefined && prefixLength !== hint.length) errors.push(`--hint length /${hint.length} conflicts with --prefix-length ${prefixLength}`);
  }
  const duidType = (str("duid-type") ?? "ll") as DuidType;
  if (!DUID_TYPES.has(duidType)) errors.push(`--duid-type must be ll, llt or en, got ${JSON.stringify(duidType)}`);
  const logLevel = str("log-level") ?? "info";
  if (!LOG_LEVELS.has(logLevel)) errors.push(`--log-level must be one of ${[...LOG_LEVELS].join(", ")}`);
  const infoOnly = values["info-only"] === true;
  const noPd = values["no-pd"] === true;
  const iaNa = values["ia-na"] === true;
  if (infoOnly && (iaNa || noPd || hint || prefixLength !== undefined)) errors.push("--info-only cannot be combined with --ia-na, --no-pd, --hint or --prefix-length");
  if (noPd && !iaNa && !infoOnly) errors.push("--no-pd needs --ia-na (or use --info-only)");
  const enterpriseNumber = intOption(errors, "enterprise-number", str("enterprise-number"), 1, 0xffffffff);
  const iaid = intOption(errors, "iaid", str("iaid"), 0, 0xffffffff) ?? 1;
  const solicitMaxDelayMs = intOption(errors, "solicit-delay-max", str("solicit-delay-max"), 0, 1000) ?? 0;
  const releaseTimeoutMs = intOption(errors, "release-timeout", str("release-timeout"), 0, 120_000) ?? 5000;
  if (errors.length > 0 || !iface || !stateDir) return { ok: false, errors };
  const options: CliOptions = {
    interface: iface,
    stateDir,
    requestAddress: iaNa,
    prefixDelegation: !noPd && !infoOnly,
    informationOnly: infoOnly,
    releaseOnStop: values["no-release"] !== true,
    duidType,
    iaid,
    rapidCommit: values["no-rapid-commit"] !== true,
    solicitMaxDelayMs,
    releaseTimeoutMs,
    logLevel,
  };
  if (instance !== undefined) options.daemon = { instance, runDir: str("run-dir") ?? DEFAULT_RUN_DIR };
  if (prefixLength !== undefined) options.prefixLength = prefixLength;
  if (hint) options.hint = hint;
  if (enterpriseNumber !== undefined) options.enterpriseNumber = enterpriseNumber;
  return { ok: true, options };
}

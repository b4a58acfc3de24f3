// Command line of routerd-dhcpv4-client: the daemon form (--instance) and the standalone form. Pure. The
// common part (--instance, --run-dir, --state-dir, --log-level, --help) is the daemon kit's parser; its CLI
// module is light (no gRPC), so nothing heavy loads before the first DISCOVER.
import { DEFAULT_RUN_DIR, DEFAULT_STATE_DIR, parseDaemonCli } from "@routerd/daemon-kit/cli";
import type { DhcpV4ClientOptions } from "./client.js";
import { isIpv4 } from "./ipv4.js";
import type { LevelName } from "./line-logger.js";
import { INSTANCE_NAME } from "./names.js";

export { DEFAULT_RUN_DIR, DEFAULT_STATE_DIR };

export const USAGE = `usage: routerd-dhcpv4-client --instance NAME --interface IF [--run-dir DIR] [--state-dir DIR] [options]
       routerd-dhcpv4-client --interface IF --state-dir DIR [--json] [options]   (standalone: events on stdout)

  --instance NAME             daemon form, as routerd runs it: socket <run-dir>/dhcpv4-client/NAME.sock,
                              lease and state in <state-dir>/dhcpv4-client/NAME/
  --run-dir DIR               daemon form: socket directory (default ${DEFAULT_RUN_DIR})
  --state-dir DIR             daemon form: base state directory (default ${DEFAULT_STATE_DIR});
                              standalone: where lease.json is kept (required)
  --interface IF              interface to run on (required)
  --hostname H                option 12
  --client-id ID              option 61: hex bytes "01:aa:bb:.." or text (default 01 + MAC)
  --vendor-class V            option 60
  --requested-address A       address to ask for in DISCOVER
  --no-release                do not send DHCPRELEASE on SIGTERM/SIGINT (keep the lease for restart)
  --arp-check                 probe the address with arping -D and DECLINE it when in use
  --json                      standalone: one JSON object per lease event on stdout (default: one text line)
  --log-level L               pino level (default info); logs go to stdout in the daemon form, stderr standalone
  --retransmit-base-ms N      first retransmission wait (default 4000)
  --retransmit-max-ms N       retransmission cap (default 64000)
  --retransmit-jitter-ms N    random +- jitter (default 1000)
  --renew-retransmit-min-ms N minimum RENEWING/REBINDING retransmission wait (default 60000)
  --request-attempts N        REQUESTs before discovery starts over (default 4)
  --reboot-attempts N         INIT-REBOOT REQUESTs before using or dropping the stored lease (default 2)
  --decline-wait-ms N         wait after DHCPDECLINE (default 10000)

signals: SIGTERM/SIGINT stop (with RELEASE unless --no-release), SIGUSR1 renews; standalone also SIGUSR2
releases. The daemon form takes the commands "renew" and "release" over its socket (routerctl).
exit codes: 0 clean stop, 1 failure, 2 bad command line, 75 another instance is running.
`;

export interface CliConfig {
  client: Omit<DhcpV4ClientOptions, "logger" | "stateDir">;
  /** Standalone: the engine's own directory. Daemon form: the base (the engine uses <dir>/dhcpv4-client/<instance>). */
  stateDir: string;
  /** Set in the daemon form. */
  daemon?: { instance: string; runDir: string };
  json: boolean;
  logLevel: LevelName;
}

export type CliParse = { ok: true; config: CliConfig } | { ok: false; error: string; help?: boolean };

const NUMERIC = {
  "retransmit-base-ms": "baseMs",
  "retransmit-max-ms": "maxMs",
  "retransmit-jitter-ms": "jitterMs",
} as const;

const COUNTS = {
  "renew-retransmit-min-ms": "renewRetransmitMinMs",
  "request-attempts": "requestAttempts",
  "reboot-attempts": "rebootAttempts",
  "decline-wait-ms": "declineWaitMs",
} as const;

function nonNegativeInt(name: string, text: string): number {
  if (!/^\d{1,9}$/.test(text)) throw new Error(`--${name} must be a non-negative integer`);
  return Number(text);
}

const stringOpt = { type: "string" } as const;

/** The options of this daemon besides the kit's common ones. */
const OPTIONS = {
  interface: stringOpt,
  hostname: stringOpt,
  "client-id": stringOpt,
  "vendor-class": stringOpt,
  "requested-address": stringOpt,
  "no-release": { type: "boolean" },
  "arp-check": { type: "boolean" },
  json: { type: "boolean" },
  ...Object.fromEntries([...Object.keys(NUMERIC), ...Object.keys(COUNTS)].map((k) => [k, stringOpt])),
} as const;

type Values = Record<string, string | boolean | undefined>;

/** This daemon's part of the command line, as a CliConfig or the message for stderr. */
function clientConfig(values: Values): CliConfig | string {
  const iface = values.interface as string | undefined;
  const instance = values.instance as string | undefined;
  const runDir = values["run-dir"] as string | undefined;
  const stateDir = (values["state-dir"] as string | undefined) ?? (instance !== undefined ? DEFAULT_STATE_DIR : undefined);
  if (!iface) return "--interface is required";
  if (!stateDir) return "--state-dir is required";
  if (instance === undefined && runDir !== undefined) return "--run-dir needs --instance (the daemon form)";
  if (instance !== undefined && values.json) return "--json is for the standalone form; the daemon form reports over its socket";
  const requested = values["requested-address"] as string | undefined;
  if (requested !== undefined && !isIpv4(requested)) return "--requested-address must be an IPv4 address";

  const client: CliConfig["client"] = { interface: iface, releaseOnStop: !values["no-release"], arpCheck: !!values["arp-check"] };
  const text = (k: string): string | undefined => values[k] as string | undefined;
  if (text("hostname") !== undefined) client.hostname = text("hostname");
  if (text("client-id") !== undefined) client.clientId = text("client-id");
  if (text("vendor-class") !== undefined) client.vendorClass = text("vendor-class");
  if (requested !== undefined) client.requestedAddress = requested;
  try {
    for (const [flag, key] of Object.entries(NUMERIC)) {
      const v = text(flag);
      if (v !== undefined) client.retransmit = { ...client.retransmit, [key]: nonNegativeInt(flag, v) };
    }
    for (const [flag, key] of Object.entries(COUNTS)) {
      const v = text(flag);
      if (v !== undefined) client[key] = nonNegativeInt(flag, v);
    }
  } catch (err) {
    return (err as Error).message;
  }
  if (client.retransmit?.baseMs === 0) return "--retransmit-base-ms must be positive";
  const logLevel = (values["log-level"] as string | undefined) ?? "info";
  const config: CliConfig = { client, stateDir, json: !!values.json, logLevel: logLevel as LevelName };
  if (instance !== undefined) config.daemon = { instance, runDir: runDir ?? DEFAULT_RUN_DIR };
  return config;
}

export function parseCliArgs(argv: string[]): CliParse {
  const r = parseDaemonCli<{ cli: CliConfig }>(argv, {
    usage: USAGE,
    config: "none",
    instanceOptional: true,
    dirDefaults: false,
    instancePattern: INSTANCE_NAME,
    instanceMissing: "--instance must be 1-64 characters from A-Z a-z 0-9 _ . @ - starting with a letter or digit",
    options: OPTIONS,
    extra: (values) => {
      const cli = clientConfig(values);
      return typeof cli === "string" ? cli : { cli };
    },
  });
  if (r.kind === "help") return { ok: false, error: r.text, help: true };
  if (r.kind === "error") return { ok: false, error: r.message };
  return { ok: true, config: r.options.cli };
}

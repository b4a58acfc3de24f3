// The pipeline's settings as routerd serve derives them from the ObservabilityPipelines (in @routerd/api's
// telemetrySettings), and the file through which serve hands them to its daemons.
import { mkdirSync, readFileSync, renameSync, unwatchFile, watchFile, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Facility } from "./encode/syslog.js";
import type { Level } from "./record.js";

export interface SinkSettings {
  pipeline: string;
  name: string;
  type: "stdout" | "syslog" | "loki" | "kafka";
  minLevel: Level;
  labels: Record<string, string>;
  syslog?: { network: "unix" | "unixgram" | "tcp" | "udp"; address: string; facility: Facility; tag: string };
  loki?: { url: string; tenant?: string; headers: Record<string, string> };
  kafka?: { brokers: string[]; topic: string };
}

export interface PipelineSettings {
  sinks: SinkSettings[];
  metrics: boolean;
  attributes: Record<string, string>;
  serviceNamespace: string;
  otlp?: OtlpSettings;
}

export type OtlpSignal = "logs" | "metrics" | "traces";

export interface OtlpSettings {
  /** The ObservabilityPipeline holding `otlp` (its status lists the OTLP signals as sinks). */
  pipeline: string;
  /** Base URL; signals go to <endpoint>/v1/logs, /v1/metrics, /v1/traces. */
  endpoint: string;
  headers: Record<string, string>;
  signals: OtlpSignal[];
  samplingRate: number;
  tls?: { caFile?: string; certFile?: string; keyFile?: string; insecureSkipVerify: boolean };
}

export const EMPTY_SETTINGS: PipelineSettings = { sinks: [], metrics: false, attributes: {}, serviceNamespace: "routerd" };

/** The environment variable naming the settings file for a daemon. */
export const SETTINGS_ENV = "ROUTERD_TELEMETRY";

/** <run-dir>/routerd/telemetry.json. */
export function settingsPath(runDir: string): string {
  return join(runDir, "routerd", "telemetry.json");
}

/** Atomic write (temp file + rename); true when the content changed. */
export function writeSettings(path: string, settings: PipelineSettings): boolean {
  const text = JSON.stringify(settings, null, 2) + "\n";
  try {
    if (readFileSync(path, "utf8") === text) return false;
  } catch {
    // absent: write it
  }
  mkdirSync(dirname(path), { recursive: true, mode: 0o755 });
  const tmp = `${path}.${process.pid}.tmp`;
  writeFileSync(tmp, text, { mode: 0o644 });
  renameSync(tmp, path);
  return true;
}

/** The settings in the file; EMPTY_SETTINGS when it is absent, an error when it is unreadable. */
export function readSettings(path: string): PipelineSettings {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return EMPTY_SETTINGS;
    throw err;
  }
  const parsed = JSON.parse(text) as PipelineSettings;
  if (!Array.isArray(parsed.sinks)) throw new Error(`${path}: sinks is not a list`);
  return { ...EMPTY_SETTINGS, ...parsed };
}

/** Calls `onChange` with the file's settings whenever it changes (polled: renames are not missed). */
export function watchSettings(path: string, onChange: (s: PipelineSettings) => void, onError: (err: unknown) => void, intervalMs = 2000): () => void {
  const listener = () => {
    try {
      onChange(readSettings(path));
    } catch (err) {
      onError(err);
    }
  };
  watchFile(path, { interval: intervalMs, persistent: false }, listener);
  return () => unwatchFile(path, listener);
}

// One telemetry record: a daemon event or a log line, from routerd serve or one of its daemons.

export const LEVELS = ["debug", "info", "warning", "error"] as const;
export type Level = (typeof LEVELS)[number];

export interface TelemetryRecord {
  /** ISO 8601. */
  time: string;
  level: Level;
  /** "event" (the daemon's event bus) or "log" (its pino log). */
  kind: "event" | "log";
  /** Which program: "routerd" for serve, else the daemon name without routerd- ("healthcheck"). */
  daemon: string;
  instance: string;
  message: string;
  topic?: string;
  resource?: string;
  seq?: number;
  attributes: Record<string, string>;
}

export function levelAtLeast(level: Level, min: Level): boolean {
  return LEVELS.indexOf(level) >= LEVELS.indexOf(min);
}

/** pino's numeric levels (10 trace ... 60 fatal) in our four. */
export function levelFromPino(n: number): Level {
  if (n >= 50) return "error";
  if (n >= 40) return "warning";
  if (n >= 30) return "info";
  return "debug";
}

/** The record as one JSON line (what stdout, Loki and Kafka carry). */
export function recordJson(r: TelemetryRecord, extra: Record<string, string> = {}): string {
  return JSON.stringify({ ...r, attributes: { ...extra, ...r.attributes } });
}

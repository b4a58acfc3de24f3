// routerd serve's events about one resource, from its event log (<state-dir>/routerd/core/events.jsonl and
// the newest rotated file), so they can be shown when serve is not running.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

export interface LoggedEvent {
  seq: number;
  time: string;
  topic: string;
  severity: string;
  resource: string;
  message: string;
  attributes: Record<string, string>;
}

function parseLines(text: string): LoggedEvent[] {
  return text.split("\n").flatMap((line) => {
    if (!line.trim()) return [];
    try {
      const e = JSON.parse(line) as LoggedEvent;
      return typeof e.seq === "number" && typeof e.topic === "string" ? [e] : [];
    } catch {
      return []; // a line torn by a crash
    }
  });
}

export function recentEvents(stateDir: string, resource: string, limit = 10): LoggedEvent[] {
  const dir = join(stateDir, "routerd", "core");
  const files = [join(dir, "events.jsonl.1"), join(dir, "events.jsonl")].filter((f) => existsSync(f));
  const all = files.flatMap((f) => parseLines(readFileSync(f, "utf8")));
  return all.filter((e) => e.resource === resource).slice(-limit);
}

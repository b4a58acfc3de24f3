// Plain renderings for get/describe: a table, JSON, YAML. Values are shown the way an operator types them.
import { stringify as toYaml } from "yaml";

export type OutputFormat = "table" | "json" | "yaml";

export function parseFormat(output: string | boolean | undefined, json: boolean): { format: OutputFormat } | { error: string } {
  if (json) return { format: "json" };
  if (output === undefined) return { format: "table" };
  const o = String(output);
  return o === "json" || o === "yaml" || o === "table" ? { format: o } : { error: `-o ${o}: choose table, json or yaml` };
}

export function serialize(value: unknown, format: "json" | "yaml"): string {
  return format === "json" ? JSON.stringify(value, null, 2) : toYaml(value).trimEnd();
}

export function showValue(v: unknown): string {
  if (Array.isArray(v)) return v.map(showValue).join(",");
  if (v !== null && typeof v === "object") return JSON.stringify(v);
  return String(v);
}

/** `k=v` for the fields that have a value (empty lists and the kind's own phase are left out). */
export function fieldsText(fields: Record<string, unknown> | undefined): string {
  if (!fields) return "";
  return Object.entries(fields)
    .filter(([k, v]) => k !== "phase" && v !== undefined && v !== null && !(Array.isArray(v) && v.length === 0))
    .map(([k, v]) => `${k}=${showValue(v)}`)
    .join(" ");
}

export function age(iso: string | undefined, now = Date.now()): string {
  if (!iso) return "-";
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 120) return `${s}s`;
  if (s < 7200) return `${Math.round(s / 60)}m`;
  if (s < 172_800) return `${Math.round(s / 3600)}h`;
  return `${Math.round(s / 86_400)}d`;
}

export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  return [header, ...rows].map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  ").trimEnd()).join("\n");
}

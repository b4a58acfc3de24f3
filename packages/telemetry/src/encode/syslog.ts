// Syslog messages (pure). Network sinks (udp, tcp) get RFC 5424 with the record's context as structured
// data; local sockets (unix, unixgram: rsyslog's or journald's /dev/log) get the RFC 3164 form those
// daemons expect. TCP frames by octet counting (RFC 6587).
import type { Level, TelemetryRecord } from "../record.js";

export const FACILITIES = {
  kern: 0, user: 1, mail: 2, daemon: 3, auth: 4, syslog: 5, lpr: 6, news: 7, uucp: 8, cron: 9, authpriv: 10, ftp: 11,
  local0: 16, local1: 17, local2: 18, local3: 19, local4: 20, local5: 21, local6: 22, local7: 23,
} as const;
export type Facility = keyof typeof FACILITIES;

const SEVERITY: Record<Level, number> = { error: 3, warning: 4, info: 6, debug: 7 };

/** Structured-data ID: 32473 is the enterprise number RFC 5612 sets aside for examples and documentation. */
export const SD_ID = "routerd@32473";

export interface SyslogHeader {
  facility: Facility;
  tag: string;
  hostname: string;
  pid: number;
}

export function priority(facility: Facility, level: Level): number {
  return FACILITIES[facility] * 8 + SEVERITY[level];
}

/** PRINTUSASCII without space, at most `max` characters; "-" (nil) when nothing is left. */
function token(value: string | undefined, max: number): string {
  const t = (value ?? "").replace(/[^!-~]/g, "_").slice(0, max);
  return t || "-";
}

function sdName(key: string): string {
  return key.replace(/[^!-~]|[=\]"]/g, "_").slice(0, 32) || "_";
}

function sdValue(value: string): string {
  return value.replace(/[\\"\]]/g, (c) => `\\${c}`);
}

/** RFC 5424, without framing. */
export function encodeRfc5424(r: TelemetryRecord, h: SyslogHeader, extra: Record<string, string> = {}): string {
  const params: [string, string][] = [["daemon", r.daemon], ["instance", r.instance], ["kind", r.kind]];
  if (r.resource) params.push(["resource", r.resource]);
  if (r.seq !== undefined) params.push(["seq", String(r.seq)]);
  for (const [k, v] of Object.entries({ ...extra, ...r.attributes })) params.push([k, v]);
  const sd = `[${SD_ID}${params.map(([k, v]) => ` ${sdName(k)}="${sdValue(v)}"`).join("")}]`;
  const msgid = r.kind === "event" ? r.topic : "log";
  return `<${priority(h.facility, r.level)}>1 ${r.time} ${token(h.hostname, 255)} ${token(h.tag, 48)} ${h.pid} ${token(msgid, 32)} ${sd} ${r.message}`;
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** RFC 3164's "Mmm dd hh:mm:ss" in local time. */
function bsdTime(iso: string): string {
  const d = new Date(iso);
  const p2 = (n: number) => String(n).padStart(2, "0");
  return `${MONTHS[d.getMonth()]} ${String(d.getDate()).padStart(2, " ")} ${p2(d.getHours())}:${p2(d.getMinutes())}:${p2(d.getSeconds())}`;
}

/** The message part of a local (RFC 3164) line: "[daemon/instance] topic resource: message", one line. */
export function localBody(r: TelemetryRecord): string {
  const what = r.kind === "event" ? `${r.topic ?? "event"}${r.resource ? ` ${r.resource}` : ""}: ` : "";
  return `[${r.daemon}/${r.instance}] ${what}${r.message.replace(/\n/g, " ")}`;
}

/** RFC 3164 as local syslog daemons take it (no hostname: the receiver adds its own). */
export function encodeRfc3164(r: TelemetryRecord, h: SyslogHeader): string {
  return `<${priority(h.facility, r.level)}>${bsdTime(r.time)} ${token(h.tag, 32)}[${h.pid}]: ${localBody(r)}`;
}

/** RFC 6587 octet counting: "<length in bytes> <message>". */
export function octetFrame(message: string): Buffer {
  const body = Buffer.from(message, "utf8");
  return Buffer.concat([Buffer.from(`${body.length} `, "ascii"), body]);
}

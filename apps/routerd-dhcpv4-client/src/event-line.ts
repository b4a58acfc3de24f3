// One stdout line per lease event: JSON for programs, text for people.
import type { LeaseEvent } from "./fsm-types.js";

export function eventRecord(ev: LeaseEvent, iface: string, at: Date): Record<string, unknown> {
  const rec: Record<string, unknown> = { event: ev.type, interface: iface, time: at.toISOString() };
  if (ev.address) rec.address = ev.address;
  if (ev.serverId) rec.serverId = ev.serverId;
  if (ev.reason) rec.reason = ev.reason;
  if (ev.resumed) rec.resumed = true;
  if (ev.lease) rec.lease = ev.lease;
  return rec;
}

export function eventText(ev: LeaseEvent, iface: string): string {
  const l = ev.lease;
  const parts: string[] = [ev.type, iface];
  if (l) {
    parts.push(`${l.address}/${l.prefixLength}`, `server ${l.serverId}`);
    if (ev.type === "bound" || ev.type === "renewed") {
      const gw = l.routes.find((r) => r.prefixLength === 0)?.gateway;
      if (gw) parts.push(`gateway ${gw}`);
      parts.push(`lease ${l.leaseTime === 0xffffffff ? "infinite" : `${l.leaseTime}s`}`);
    }
  } else if (ev.address) {
    parts.push(ev.address);
  }
  if (ev.serverId && !l) parts.push(`server ${ev.serverId}`);
  if (ev.reason) parts.push(`(${ev.reason})`);
  if (ev.resumed) parts.push("(resumed without server confirmation)");
  return parts.join(" ");
}

export function eventLine(ev: LeaseEvent, iface: string, json: boolean, at: Date = new Date()): string {
  return json ? JSON.stringify(eventRecord(ev, iface, at)) : eventText(ev, iface);
}

// Receiving Advertise and Reply messages (RFC 8415 §16, §18.2.9, §18.2.10). Pure.
import type { Dhcp6Message } from "./codec.js";
import { MAX_RT_OPTION_MAX_S, MAX_RT_OPTION_MIN_S, MessageType, StatusCode, statusName } from "./constants.js";
import {
  Ctx,
  applyMerge,
  finishRelease,
  noteInformation,
  refreshDelayMs,
  restartSolicit,
  startRebindingRequest,
  startRequest,
} from "./fsm-core.js";
import type { Advert, Exchange } from "./fsm-types.js";
import { mergeReply, readIa, readInformation, topLevelStatus, usableCount, type IaView } from "./lease.js";
import { findOption } from "./options.js";
import { bytesEqual, toHex } from "./wire.js";

/** Why a received message is not for us, or undefined when it is (§16.3, §16.10). */
function rejectReason(ctx: Ctx, m: Dhcp6Message, ex: Exchange | undefined): string | undefined {
  if (m.type !== MessageType.ADVERTISE && m.type !== MessageType.REPLY) return "not an Advertise or Reply";
  if (!ex || ex.count === 0) return "no exchange in progress";
  if (m.xid !== ex.xid) return "transaction id mismatch";
  const serverId = findOption(m.options, "server-id");
  if (!serverId) return "no server identifier";
  const clientId = findOption(m.options, "client-id");
  if (!clientId) return "no client identifier";
  if (!bytesEqual(clientId.duid, ctx.cfg.clientDuid)) return "client identifier is not ours";
  if (m.type === MessageType.ADVERTISE && ex.kind !== "solicit") return "Advertise outside Solicit";
  if (ex.serverId && (ex.kind === "request" || ex.kind === "renew" || ex.kind === "release")) {
    if (!bytesEqual(serverId.duid, ex.serverId)) return "server identifier is not the one we asked";
  }
  return undefined;
}

export function onPacket(ctx: Ctx, m: Dhcp6Message, from: string): void {
  const ex = ctx.state.exchange;
  const reason = rejectReason(ctx, m, ex);
  if (reason || !ex) {
    ctx.log("debug", "ignored message", { reason, xid: m.xid, type: m.type, from });
    return;
  }
  applyMaxRt(ctx, m);
  if (m.type === MessageType.ADVERTISE) onAdvertise(ctx, m, from, ex);
  else onReply(ctx, m, from, ex);
}

/** SOL_MAX_RT / INF_MAX_RT from the server replace our defaults when in range (§18.2.9, §21.24). */
function applyMaxRt(ctx: Ctx, m: Dhcp6Message): void {
  const inRange = (s: number) => s >= MAX_RT_OPTION_MIN_S && s <= MAX_RT_OPTION_MAX_S;
  const sol = findOption(m.options, "sol-max-rt");
  if (sol && inRange(sol.seconds)) ctx.state.solMaxRtMs = sol.seconds * 1000;
  const inf = findOption(m.options, "inf-max-rt");
  if (inf && inRange(inf.seconds)) ctx.state.infMaxRtMs = inf.seconds * 1000;
  const ex = ctx.state.exchange;
  if (ex?.kind === "solicit" && ctx.state.solMaxRtMs) ctx.state.exchange = { ...ex, params: { ...ex.params, mrtMs: ctx.state.solMaxRtMs } };
  if (ex?.kind === "information-request" && ctx.state.infMaxRtMs) {
    ctx.state.exchange = { ...ex, params: { ...ex.params, mrtMs: ctx.state.infMaxRtMs } };
  }
}

function wantedIas(ctx: Ctx, m: Dhcp6Message): IaView[] {
  const out: IaView[] = [];
  if (ctx.cfg.pd) {
    const v = readIa(m.options, "ia-pd", ctx.cfg.pd.iaid);
    if (v) out.push(v);
  }
  if (ctx.cfg.na) {
    const v = readIa(m.options, "ia-na", ctx.cfg.na.iaid);
    if (v) out.push(v);
  }
  return out;
}

function statusSummary(m: Dhcp6Message, ias: IaView[]): Record<string, string> {
  const out: Record<string, string> = { message: statusName(topLevelStatus(m.options).status) };
  for (const ia of ias) out[ia.type] = ia.invalid ?? `${statusName(ia.status)}${ia.statusMessage ? `: ${ia.statusMessage}` : ""}`;
  return out;
}

function onAdvertise(ctx: Ctx, m: Dhcp6Message, from: string, ex: Exchange): void {
  const ias = wantedIas(ctx, m);
  const usable = ias.reduce((n, ia) => n + usableCount(ia), 0);
  // An Advertise without any lease is ignored (§18.2.9); its SOL_MAX_RT was already applied.
  if (usable === 0) return ctx.log("info", "ignored Advertise without leases", { from, status: statusSummary(m, ias) });
  const advert: Advert = {
    serverId: findOption(m.options, "server-id")!.duid,
    serverAddress: from,
    preference: findOption(m.options, "preference")?.value ?? 0,
    ias,
    usable,
  };
  ctx.log("debug", "advertise", { from, preference: advert.preference, usable });
  // Preference 255, or any Advertise once the first RT is over, is taken at once.
  if (advert.preference === 255 || ex.firstRtDone) return startRequest(ctx, advert);
  const others = (ex.adverts ?? []).filter((a) => !bytesEqual(a.serverId, advert.serverId));
  ctx.state.exchange = { ...ex, adverts: [...others, advert] };
}

function onReply(ctx: Ctx, m: Dhcp6Message, from: string, ex: Exchange): void {
  const top = topLevelStatus(m.options);
  if (ex.kind === "release") {
    ctx.log("info", "release confirmed", { status: statusName(top.status) });
    return finishRelease(ctx);
  }
  // UnspecFail: retry at the normal retransmission pace. UseMulticast: we always multicast, so the same.
  if (top.status === StatusCode.UnspecFail || top.status === StatusCode.UseMulticast) {
    return ctx.log("info", "server asked to retry", { status: statusName(top.status), message: top.message, exchange: ex.kind });
  }
  if (ex.kind === "information-request") return onInformationReply(ctx, m);
  if (ex.kind === "solicit" && !(ctx.cfg.rapidCommit && findOption(m.options, "rapid-commit"))) {
    return ctx.log("debug", "ignored Reply to Solicit without Rapid Commit", { from });
  }
  const ias = wantedIas(ctx, m);
  const serverId = toHex(findOption(m.options, "server-id")!.duid);
  const information = readInformation(m.options);
  if (top.status === StatusCode.NotOnLink || ias.some((ia) => ia.status === StatusCode.NotOnLink)) {
    ctx.state.hintRejected = true;
    ctx.log("warn", "server says our hint is not on link; soliciting without it", { status: statusSummary(m, ias) });
    return restartSolicit(ctx, true);
  }
  if (ex.kind === "solicit" || ex.kind === "request") {
    const usable = ias.reduce((n, ia) => n + usableCount(ia), 0);
    if (usable === 0) {
      if (ex.kind === "solicit") return ctx.log("info", "ignored rapid-commit Reply without leases", { status: statusSummary(m, ias) });
      ctx.log("warn", "Reply to Request holds no leases; back to Solicit", { status: statusSummary(m, ias) });
      return restartSolicit(ctx, true);
    }
    return applyMerge(ctx, mergeReply(ctx.state.lease, { serverId, serverAddress: from, ias, information }, ctx.now), "request");
  }
  // Renew / Rebind (§18.2.10.1).
  if (ias.some((ia) => ia.status === StatusCode.NoBinding)) {
    ctx.log("info", "server has no binding for us; sending Request", { status: statusSummary(m, ias) });
    return startRebindingRequest(ctx, findOption(m.options, "server-id")!.duid);
  }
  const accepted = ias.filter((ia) => ia.status === StatusCode.Success && !ia.invalid);
  if (accepted.length === 0) {
    return ctx.log("info", "Reply without usable IAs; keep retransmitting", { exchange: ex.kind, status: statusSummary(m, ias) });
  }
  applyMerge(ctx, mergeReply(ctx.state.lease, { serverId, serverAddress: from, ias: accepted, information }, ctx.now), ex.kind === "rebind" ? "rebind" : "renew");
}

function onInformationReply(ctx: Ctx, m: Dhcp6Message): void {
  const info = readInformation(m.options);
  ctx.state.exchange = undefined;
  ctx.state.phase = "informed";
  ctx.cancel("exchange");
  noteInformation(ctx, info, true);
  ctx.timer("refresh", ctx.now + refreshDelayMs(info.refreshTime));
}

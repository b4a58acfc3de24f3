// What each phase does with each kind of server reply (RFC 2131 §4.4), as a table.
import type { DhcpMessage } from "./codec.js";
import { beginRequest, emit, enterBound, ignore, loseLease, restartAfterNak } from "./fsm-exchanges.js";
import type { Ctx, LeaseEvent, Phase } from "./fsm-types.js";
import { BROADCAST_ADDRESS, ZERO_ADDRESS } from "./ipv4.js";
import { leaseFromAck, type DhcpLease } from "./lease.js";
import { MessageType, Opt, readAddress, readText } from "./options.js";

export type PacketHandler = (ctx: Ctx, msg: DhcpMessage) => void;

function onOffer(ctx: Ctx, msg: DhcpMessage): void {
  const serverId = readAddress(msg.options, Opt.ServerId);
  if (msg.yiaddr === ZERO_ADDRESS || msg.yiaddr === BROADCAST_ADDRESS) return ignore(ctx, "OFFER without a usable yiaddr");
  if (!serverId) return ignore(ctx, "OFFER without a server identifier");
  beginRequest(ctx, { address: msg.yiaddr, serverId });
}

function fromChosenServer(ctx: Ctx, msg: DhcpMessage): boolean {
  const serverId = readAddress(msg.options, Opt.ServerId);
  return serverId === undefined || serverId === ctx.s.offer?.serverId;
}

function onRequestAck(ctx: Ctx, msg: DhcpMessage): void {
  if (!fromChosenServer(ctx, msg)) return ignore(ctx, "ACK from a server we did not select");
  const built = leaseFromAck(msg, ctx.s.requestSentAt, ctx.s.offer?.serverId);
  if (!built.ok) return ignore(ctx, built.error);
  if (ctx.cfg.arpCheck) {
    ctx.s.phase = "checking";
    ctx.s.pending = built.lease;
    ctx.s.deadlines = {};
    ctx.actions.push({ type: "probe", address: built.lease.address });
    return;
  }
  enterBound(ctx, built.lease, "bound");
}

function nakEvent(ctx: Ctx, msg: DhcpMessage): void {
  const ev: LeaseEvent = { type: "nak" };
  const serverId = readAddress(msg.options, Opt.ServerId);
  const text = readText(msg.options, Opt.Message);
  if (serverId) ev.serverId = serverId;
  if (text) ev.reason = text;
  emit(ctx, ev);
}

function onRequestNak(ctx: Ctx, msg: DhcpMessage): void {
  if (!fromChosenServer(ctx, msg)) return ignore(ctx, "NAK from a server we did not select");
  nakEvent(ctx, msg);
  restartAfterNak(ctx);
}

function onLeaseNak(ctx: Ctx, msg: DhcpMessage): void {
  nakEvent(ctx, msg);
  loseLease(ctx, "nak");
  restartAfterNak(ctx);
}

/** ACK in INIT-REBOOT, RENEWING or REBINDING: same address extends, another one replaces. */
function onLeaseAck(ctx: Ctx, msg: DhcpMessage): void {
  const held = ctx.s.lease as DhcpLease;
  const built = leaseFromAck(msg, ctx.s.requestSentAt, held.serverId);
  if (!built.ok) return ignore(ctx, built.error);
  const rebooting = ctx.s.phase === "rebooting";
  if (built.lease.address !== held.address) {
    loseLease(ctx, "address-changed");
    return enterBound(ctx, built.lease, "bound");
  }
  enterBound(ctx, built.lease, rebooting ? "bound" : "renewed");
}

export const PACKET_HANDLERS: Partial<Record<Phase, Partial<Record<number, PacketHandler>>>> = {
  selecting: { [MessageType.Offer]: onOffer },
  requesting: { [MessageType.Ack]: onRequestAck, [MessageType.Nak]: onRequestNak },
  rebooting: { [MessageType.Ack]: onLeaseAck, [MessageType.Nak]: onLeaseNak },
  renewing: { [MessageType.Ack]: onLeaseAck, [MessageType.Nak]: onLeaseNak },
  rebinding: { [MessageType.Ack]: onLeaseAck, [MessageType.Nak]: onLeaseNak },
};

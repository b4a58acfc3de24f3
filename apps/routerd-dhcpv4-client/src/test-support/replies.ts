// Builds server replies as wire bytes and decodes them back, so state-machine tests exercise the codec too.
import { BOOTREPLY, FLAG_BROADCAST, decodeMessage, encodeMessage, type DhcpMessage } from "../codec.js";
import { ipv4Bytes } from "../ipv4.js";
import { Opt, encodeClasslessRoutes, text, u32, type ClasslessRoute } from "../options.js";

export const MAC = Uint8Array.of(0x02, 0x00, 0x5e, 0x10, 0x20, 0x30);
export const SERVER = "192.0.2.1";

export interface ReplySpec {
  type: number;
  xid: number;
  mac?: Uint8Array;
  yiaddr?: string;
  serverId?: string | null;
  leaseTime?: number;
  t1?: number;
  t2?: number;
  mask?: string;
  routers?: string[];
  dns?: string[];
  domain?: string;
  classless?: ClasslessRoute[];
  message?: string;
  extra?: Array<readonly [number, Uint8Array]>;
}

function addrs(list: string[]): Uint8Array {
  return Buffer.concat(list.map((a) => ipv4Bytes(a)));
}

export function replyBytes(spec: ReplySpec): Buffer {
  const options: Array<readonly [number, Uint8Array]> = [[Opt.MessageType, Uint8Array.of(spec.type)]];
  const serverId = spec.serverId === undefined ? SERVER : spec.serverId;
  if (serverId) options.push([Opt.ServerId, ipv4Bytes(serverId)]);
  if (spec.leaseTime !== undefined) options.push([Opt.LeaseTime, u32(spec.leaseTime)]);
  if (spec.t1 !== undefined) options.push([Opt.RenewalTime, u32(spec.t1)]);
  if (spec.t2 !== undefined) options.push([Opt.RebindingTime, u32(spec.t2)]);
  if (spec.mask) options.push([Opt.SubnetMask, ipv4Bytes(spec.mask)]);
  if (spec.routers) options.push([Opt.Router, addrs(spec.routers)]);
  if (spec.dns) options.push([Opt.DnsServers, addrs(spec.dns)]);
  if (spec.domain) options.push([Opt.DomainName, text(spec.domain)]);
  if (spec.classless) options.push([Opt.ClasslessRoutes, encodeClasslessRoutes(spec.classless)]);
  if (spec.message) options.push([Opt.Message, text(spec.message)]);
  options.push(...(spec.extra ?? []));
  return encodeMessage({
    op: BOOTREPLY,
    xid: spec.xid,
    flags: FLAG_BROADCAST,
    yiaddr: spec.yiaddr ?? "0.0.0.0",
    chaddr: spec.mac ?? MAC,
    options,
  });
}

export function reply(spec: ReplySpec): DhcpMessage {
  const decoded = decodeMessage(replyBytes(spec));
  if (!decoded.ok) throw new Error(`test reply does not decode: ${decoded.error}`);
  return decoded.message;
}

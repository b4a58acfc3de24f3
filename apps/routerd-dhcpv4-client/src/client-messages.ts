// The messages a client sends, one builder per row of RFC 2131 table 5.
import { FLAG_BROADCAST, type OutgoingMessage } from "./codec.js";
import { ipv4Bytes } from "./ipv4.js";
import type { DhcpLease } from "./lease.js";
import { MessageType, Opt, text, u16, type MessageTypeCode } from "./options.js";

export interface IdentityConfig {
  /** 6-byte Ethernet address of the interface. */
  mac: Uint8Array;
  /** Option 61 value, type byte included. */
  clientId: Uint8Array;
  hostname?: string;
  vendorClass?: string;
  parameterRequestList: ReadonlyArray<number>;
  maxMessageSize: number;
}

/** What routerd needs from a server; 121 before 3 so RFC 3442 servers see it. */
export const DEFAULT_PARAMETER_REQUEST_LIST: ReadonlyArray<number> = [
  Opt.SubnetMask,
  Opt.ClasslessRoutes,
  Opt.Router,
  Opt.DnsServers,
  Opt.HostName,
  Opt.DomainName,
  Opt.InterfaceMtu,
  Opt.BroadcastAddress,
  Opt.NtpServers,
  Opt.LeaseTime,
  Opt.ServerId,
  Opt.RenewalTime,
  Opt.RebindingTime,
];

type OptionList = Array<readonly [number, Uint8Array]>;

function base(type: MessageTypeCode, id: IdentityConfig): OptionList {
  return [
    [Opt.MessageType, Uint8Array.of(type)],
    [Opt.ClientId, id.clientId],
  ];
}

/** Options that describe what we want; allowed in DISCOVER and REQUEST only. */
function wants(id: IdentityConfig): OptionList {
  const out: OptionList = [
    [Opt.MaxMessageSize, u16(id.maxMessageSize)],
    [Opt.ParameterRequestList, Uint8Array.from(id.parameterRequestList)],
  ];
  if (id.hostname) out.push([Opt.HostName, text(id.hostname)]);
  if (id.vendorClass) out.push([Opt.VendorClass, text(id.vendorClass)]);
  return out;
}

export function buildDiscover(id: IdentityConfig, xid: number, secs: number, requestedAddress?: string): OutgoingMessage {
  const options = base(MessageType.Discover, id);
  if (requestedAddress) options.push([Opt.RequestedAddress, ipv4Bytes(requestedAddress)]);
  options.push(...wants(id));
  return { xid, secs, flags: FLAG_BROADCAST, chaddr: id.mac, options };
}

/** SELECTING: answer one OFFER, naming its server. */
export function buildSelectingRequest(id: IdentityConfig, xid: number, secs: number, address: string, serverId: string): OutgoingMessage {
  const options = base(MessageType.Request, id);
  options.push([Opt.RequestedAddress, ipv4Bytes(address)], [Opt.ServerId, ipv4Bytes(serverId)], ...wants(id));
  return { xid, secs, flags: FLAG_BROADCAST, chaddr: id.mac, options };
}

/** INIT-REBOOT: verify a remembered address with whichever server answers. */
export function buildRebootRequest(id: IdentityConfig, xid: number, secs: number, address: string): OutgoingMessage {
  const options = base(MessageType.Request, id);
  options.push([Opt.RequestedAddress, ipv4Bytes(address)], ...wants(id));
  return { xid, secs, flags: FLAG_BROADCAST, chaddr: id.mac, options };
}

/** RENEWING (unicast) and REBINDING (broadcast): ciaddr carries the address, no 50/54. */
export function buildExtendRequest(id: IdentityConfig, xid: number, secs: number, lease: DhcpLease): OutgoingMessage {
  const options = base(MessageType.Request, id);
  options.push(...wants(id));
  return { xid, secs, ciaddr: lease.address, chaddr: id.mac, options };
}

export function buildDecline(id: IdentityConfig, xid: number, address: string, serverId: string): OutgoingMessage {
  const options = base(MessageType.Decline, id);
  options.push([Opt.RequestedAddress, ipv4Bytes(address)], [Opt.ServerId, ipv4Bytes(serverId)]);
  return { xid, chaddr: id.mac, options };
}

export function buildRelease(id: IdentityConfig, xid: number, lease: DhcpLease): OutgoingMessage {
  const options = base(MessageType.Release, id);
  options.push([Opt.ServerId, ipv4Bytes(lease.serverId)]);
  return { xid, ciaddr: lease.address, chaddr: id.mac, options };
}

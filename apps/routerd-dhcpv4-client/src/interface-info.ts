// Index and hardware address of the interface, always from the caller's network namespace
// (/sys/class/net shows the namespace that mounted sysfs, which differs after a bare setns(), so it is
// not used). Fast path: getifaddrs via os.networkInterfaces(), whose IPv6 link-local entry carries the
// ifindex as scope id. Otherwise (no link-local address yet, link down): `ip -j link show`.
import { execFile } from "node:child_process";
import { networkInterfaces, type NetworkInterfaceInfo } from "node:os";

export interface InterfaceInfo {
  name: string;
  ifindex: number;
  mac: Uint8Array;
  mtu?: number;
}

/** Linux IFNAMSIZ is 16 including the NUL. */
const IFNAME = /^[A-Za-z0-9_.:@+-]{1,15}$/;
const MAC = /^([0-9a-f]{2}:){5}[0-9a-f]{2}$/i;

export function isInterfaceName(name: string): boolean {
  return IFNAME.test(name) && name !== "." && name !== "..";
}

export function parseMac(text: string): Uint8Array | undefined {
  if (!MAC.test(text)) return undefined;
  return Uint8Array.from(text.split(":").map((h) => parseInt(h, 16)));
}

export function formatMac(mac: Uint8Array): string {
  return Array.from(mac, (b) => b.toString(16).padStart(2, "0")).join(":");
}

/** Parses `ip -j link show dev NAME`; errors name what is wrong with the link. */
export function parseIpLinkJson(json: string, name: string): InterfaceInfo {
  let data: unknown;
  try {
    data = JSON.parse(json);
  } catch {
    throw new Error(`cannot parse 'ip -j link show dev ${name}' output`);
  }
  const link = Array.isArray(data) ? (data[0] as Record<string, unknown> | undefined) : undefined;
  if (!link || link.ifname !== name || typeof link.ifindex !== "number") throw new Error(`interface ${name} not found`);
  if (link.link_type !== "ether") throw new Error(`interface ${name} is ${String(link.link_type)}, DHCPv4 needs an Ethernet link`);
  const mac = typeof link.address === "string" ? parseMac(link.address) : undefined;
  if (!mac) throw new Error(`interface ${name} has no Ethernet address`);
  const info: InterfaceInfo = { name, ifindex: link.ifindex, mac };
  if (typeof link.mtu === "number") info.mtu = link.mtu;
  return info;
}

/** Index and MAC from getifaddrs entries, when an IPv6 link-local address gives away the index. */
export function infoFromAddresses(name: string, entries: ReadonlyArray<NetworkInterfaceInfo> | undefined): InterfaceInfo | undefined {
  const linkLocal = entries?.find((e) => e.family === "IPv6" && e.scopeid !== undefined && e.scopeid > 0);
  const mac = linkLocal ? parseMac(linkLocal.mac) : undefined;
  if (!linkLocal || !mac || mac.every((b) => b === 0)) return undefined;
  return { name, ifindex: linkLocal.scopeid as number, mac };
}

export function readInterfaceInfo(name: string): Promise<InterfaceInfo> {
  if (!isInterfaceName(name)) return Promise.reject(new Error(`invalid interface name ${JSON.stringify(name)}`));
  const fast = infoFromAddresses(name, networkInterfaces()[name]);
  if (fast) return Promise.resolve(fast);
  return readWithIp(name);
}

function readWithIp(name: string): Promise<InterfaceInfo> {
  return new Promise((resolve, reject) => {
    execFile("ip", ["-j", "link", "show", "dev", name], { timeout: 5000 }, (err, stdout, stderr) => {
      if (err) {
        reject(new Error(`interface ${name} not found: ${String(stderr).trim() || err.message}`));
        return;
      }
      try {
        resolve(parseIpLinkJson(String(stdout), name));
      } catch (e) {
        reject(e as Error);
      }
    });
  });
}

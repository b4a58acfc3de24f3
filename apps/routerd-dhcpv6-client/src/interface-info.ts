// What the client needs to know about its interface: the link-local address to bind and the MAC for the DUID.
import { readFileSync } from "node:fs";
import { networkInterfaces } from "node:os";
import { parseMac } from "./duid.js";

/** The interface's IPv6 link-local address without scope, or undefined while it has none. */
export function findLinkLocal(ifname: string): string | undefined {
  const addrs = networkInterfaces()[ifname] ?? [];
  return addrs.find((a) => a.family === "IPv6" && a.address.toLowerCase().startsWith("fe80:"))?.address;
}

export function readMac(ifname: string): Uint8Array | undefined {
  try {
    const mac = parseMac(readFileSync(`/sys/class/net/${ifname}/address`, "utf8"));
    if (mac) return mac;
  } catch {
    // sysfs may be missing (FreeBSD) or belong to another netns: fall back to getifaddrs.
  }
  const entry = (networkInterfaces()[ifname] ?? []).find((a) => a.mac && a.mac !== "00:00:00:00:00:00");
  return entry ? parseMac(entry.mac) : undefined;
}

export function interfaceExists(ifname: string): boolean {
  return networkInterfaces()[ifname] !== undefined;
}

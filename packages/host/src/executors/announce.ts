// Announcements after an address was added: a gratuitous ARP tells the link's neighbours (and switches)
// where an address now lives, so a moved or restored address is reachable at once. IPv6 needs none here:
// the kernel sends an unsolicited NA after DAD when ndisc_notify is on (a sysctl the owning resource sets).
import type { Attributes } from "@routerd/resource";
import type { HostContext } from "../context.js";

/** iputils arping: -U unsolicited ARP (sender = target = the address), one broadcast (arping then waits 1 s). */
export function gratuitousArpArgs(attrs: Attributes): string[] {
  const address = String(attrs.address);
  return ["-U", "-c", "1", "-I", String(attrs.ifname), "-s", address, address];
}

export async function announceIpv4Address(ctx: HostContext, attrs: Attributes): Promise<void> {
  if (attrs.gratuitousARP !== true) return;
  const r = await ctx.runner.run("arping", gratuitousArpArgs(attrs));
  // In -U mode no replies are expected; a non-zero exit is a send error (no such device, no permission).
  if (r.code !== 0) {
    throw new Error(`address added, but the gratuitous ARP failed (arping from iputils-arping): ${(r.stderr || r.stdout).trim() || `exit ${r.code}`}`);
  }
}

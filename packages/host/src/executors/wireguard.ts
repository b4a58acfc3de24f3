// WireGuard executors: create the device (kernel module, else wireguard-go over tun), give it its key and
// port, and set peers one at a time with `wg set`, which leaves every other peer's session alone. Keys go to
// `wg` as file paths, never as arguments.
import type { Attributes } from "@routerd/resource";
import { rooted, type HostContext } from "../context.js";

const str = (v: unknown) => (v === undefined || v === null ? "" : String(v));

async function run(ctx: HostContext, cmd: string, args: string[]): Promise<void> {
  const r = await ctx.runner.run(cmd, args);
  if (r.code !== 0) throw new Error(`${cmd} ${args.join(" ")}: ${r.stderr.trim() || `exit ${r.code}`}`);
}

async function linkKind(ctx: HostContext, ifname: string): Promise<string | undefined> {
  const r = await ctx.runner.run("ip", ["-d", "-j", "link", "show", "dev", ifname]);
  if (r.code !== 0) return undefined;
  const [link] = JSON.parse(r.stdout || "[]") as { linkinfo?: { info_kind?: string } }[];
  return link?.linkinfo?.info_kind ?? "unknown";
}

/** Kernel first where allowed; "auto" falls back to wireguard-go when the kernel has no wireguard module. */
async function createDevice(ctx: HostContext, ifname: string, backend: string): Promise<void> {
  if (backend !== "wireguard-go") {
    const r = await ctx.runner.run("ip", ["link", "add", "dev", ifname, "type", "wireguard"]);
    if (r.code === 0) return;
    if (backend === "kernel") throw new Error(`ip link add ${ifname} type wireguard: ${r.stderr.trim()} (this kernel has no wireguard module; use backend: auto or wireguard-go)`);
  }
  // wireguard-go forks into the background with its stdio on /dev/null and returns once the tun device exists.
  const r = await ctx.runner.run("wireguard-go", [ifname]);
  if (r.code !== 0) {
    const missing = r.code === 127 ? " (install the wireguard-go package, or load the wireguard kernel module)" : "";
    throw new Error(`wireguard-go ${ifname}: ${r.stderr.trim().split("\n").pop() ?? `exit ${r.code}`}${missing}`);
  }
}

export async function ensureWireGuardDevice(ctx: HostContext, attrs: Attributes): Promise<void> {
  if (attrs.keyError) throw new Error(str(attrs.keyError));
  const ifname = str(attrs.ifname);
  const backend = str(attrs.backend) || "auto";
  const kind = await linkKind(ctx, ifname);
  const wrongBackend = (backend === "kernel" && kind === "tun") || (backend === "wireguard-go" && kind === "wireguard");
  if (kind !== undefined && !wrongBackend && kind !== "wireguard" && kind !== "tun") throw new Error(`${ifname} exists and is a ${kind} link, not a WireGuard device`);
  if (wrongBackend) await run(ctx, "ip", ["link", "del", "dev", ifname]);
  if (kind === undefined || wrongBackend) await createDevice(ctx, ifname, backend);
  const args = ["set", ifname, "private-key", rooted(ctx, str(attrs.privateKeyFile))];
  if (attrs.listenPort !== undefined) args.push("listen-port", str(attrs.listenPort));
  args.push("fwmark", attrs.fwmark !== undefined ? str(attrs.fwmark) : "off");
  await run(ctx, "wg", args);
}

export async function removeWireGuardDevice(ctx: HostContext, attrs: Attributes): Promise<void> {
  const ifname = str(attrs.ifname);
  if ((await linkKind(ctx, ifname)) === undefined) return;
  await run(ctx, "ip", ["link", "del", "dev", ifname]);
}

export async function ensureWireGuardPeer(ctx: HostContext, attrs: Attributes): Promise<void> {
  if (attrs.keyError) throw new Error(str(attrs.keyError));
  const allowed = (attrs.allowedIPs as string[] | undefined) ?? [];
  const args = ["set", str(attrs.ifname), "peer", str(attrs.publicKey), "allowed-ips", allowed.join(",")];
  if (str(attrs.endpoint)) args.push("endpoint", str(attrs.endpoint));
  args.push("persistent-keepalive", Number(attrs.persistentKeepalive ?? 0) > 0 ? str(attrs.persistentKeepalive) : "off");
  args.push("preshared-key", str(attrs.presharedKeyFile) ? rooted(ctx, str(attrs.presharedKeyFile)) : "/dev/null");
  await run(ctx, "wg", args);
}

export async function removeWireGuardPeer(ctx: HostContext, attrs: Attributes): Promise<void> {
  if ((await linkKind(ctx, str(attrs.ifname))) === undefined) return; // gone with its device
  await run(ctx, "wg", ["set", str(attrs.ifname), "peer", str(attrs.publicKey), "remove"]);
}

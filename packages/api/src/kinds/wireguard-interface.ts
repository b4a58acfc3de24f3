// A WireGuard device routerd creates and owns: the kernel module where the kernel has one, wireguard-go over
// tun where it does not. The private key stays in its file: intents, plans and the ledger carry the public key.
import { artifactNames, type ArtifactIntent } from "@routerd/resource";
import { formats } from "../formats.js";
import { API_GROUPS, defineKind, type ConfigView, type Resource } from "../kind.js";
import { t, type Infer } from "../schema.js";

export const WIREGUARD_BACKENDS = ["auto", "kernel", "wireguard-go"] as const;

export const wireGuardInterfaceSpec = t.object({
  ifname: t.optional(formats.ifname().describe("Linux interface name; defaults to metadata.name")),
  listenPort: t.optional(formats.port().describe("UDP port to listen on (default: a random port, as wg chooses)")),
  mtu: t.withDefault(t.int({ min: 1280, max: 65535 }).describe("link MTU (WireGuard's usual 1420 leaves room for its IPv6 overhead)"), 1420),
  privateKeyFile: t.optional(t.string({ pattern: /^\//, patternHint: "an absolute path" }).describe("file with the base64 private key (wg genkey), mode 0600; never copied into plans, logs or the ledger")),
  privateKey: t.optional(t.string().describe("not accepted: use privateKeyFile")),
  fwmark: t.optional(formats.fwmark().describe("mark on the tunnel's own UDP packets (wg fwmark)")),
  backend: t.withDefault(t.enum(...WIREGUARD_BACKENDS).describe("auto: the kernel module if the kernel has one, else wireguard-go"), "auto"),
  peersFrom: t.optional(t.array(t.object({ resource: t.string(), optional: t.optional(t.bool()) })).describe("not supported in this version (SAM node sets)")),
  selfNodeRef: t.optional(t.string().describe("not supported in this version (SAM node sets)")),
});

export type WireGuardInterfaceSpec = Infer<typeof wireGuardInterfaceSpec>;

export const wireGuardIfname = (res: Resource<WireGuardInterfaceSpec>) => res.spec.ifname ?? res.metadata.name;

export function wireGuardFwmark(v: number | string | undefined): number | undefined {
  return v === undefined ? undefined : typeof v === "number" ? v : Number.parseInt(v, 16);
}

/** The WireGuardPeers of an interface resource. */
export function peersOf(view: ConfigView, interfaceName: string): Resource<{ interface: string; publicKey: string }>[] {
  return view.all<{ interface: string; publicKey: string }>("WireGuardPeer").filter((p) => p.spec.interface === interfaceName);
}

export const wireGuardInterfaceKind = defineKind<WireGuardInterfaceSpec>({
  apiVersion: API_GROUPS.net,
  kind: "WireGuardInterface",
  description: "A WireGuard device routerd creates (kernel module, or wireguard-go where the kernel has none); its peers are WireGuardPeer resources.",
  class: "link",
  contract: { type: "ArtifactKinds", artifactKinds: ["wireguard.device", "linux.link"] },
  supportsWhen: true,
  spec: wireGuardInterfaceSpec,
  ifname: (res) => wireGuardIfname(res),
  status(res, ctx) {
    const ifname = wireGuardIfname(res);
    const peerCount = peersOf(ctx, res.metadata.name).length;
    const fact = ctx.runtime.wireguard(ifname);
    if (fact.state === "unknown") return { fields: { peerCount }, unknown: fact.reason };
    if (fact.state === "absent") return { phase: "Missing", fields: { peerCount } };
    const d = fact.value;
    return { fields: { publicKey: d.publicKey, listenPort: d.listenPort, fwmark: d.fwmark ?? 0, peerCount, backend: d.backend } };
  },
  // The original's table, plus `backend` (kernel or wireguard-go: which one routerd found and used).
  provides: { publicKey: "string", selfNodeRef: "string", listenPort: "int", fwmark: "int", peerCount: "int", hostFirewall: "object", peersFrom: "objectList", pendingSources: "stringList", backend: "string" },
  check(res, ctx) {
    const s = res.spec;
    if (s.privateKey !== undefined) ctx.error(["privateKey"], "a private key is not accepted inside the config (it would end up in backups, diffs and plans)", "write it to a file (umask 077; wg genkey > /etc/routerd/wireguard/NAME.key) and set privateKeyFile");
    if (s.privateKeyFile === undefined && s.privateKey === undefined) ctx.error([], "privateKeyFile is required", "umask 077; wg genkey > /etc/routerd/wireguard/NAME.key, then privateKeyFile: /etc/routerd/wireguard/NAME.key");
    if (s.peersFrom !== undefined) ctx.error(["peersFrom"], "peersFrom (SAM node sets) is not supported in this version", "list the peers as WireGuardPeer resources");
    if (s.selfNodeRef !== undefined) ctx.error(["selfNodeRef"], "selfNodeRef (SAM node sets) is not supported in this version", "remove it");
    const ifname = wireGuardIfname(res);
    for (const other of ctx.all<WireGuardInterfaceSpec>("WireGuardInterface")) {
      if (other.index >= res.index) continue;
      if (wireGuardIfname(other) === ifname) ctx.error(["ifname"], `WireGuardInterface/${other.metadata.name} already uses ifname ${ifname}`);
      if (s.listenPort !== undefined && other.spec.listenPort === s.listenPort) ctx.error(["listenPort"], `WireGuardInterface/${other.metadata.name} already listens on ${s.listenPort}`);
    }
    if (ctx.all<{ ifname?: string }>("Interface").some((i) => (i.spec.ifname ?? i.metadata.name) === ifname)) {
      ctx.error(["ifname"], `an Interface resource also names ${ifname}`, "refer to the WireGuardInterface by its name wherever an interface is asked for; remove the Interface");
    }
  },
  intents(res) {
    const s = res.spec;
    const ifname = wireGuardIfname(res);
    const fwmark = wireGuardFwmark(s.fwmark);
    const out: ArtifactIntent[] = [
      {
        kind: "wireguard.device",
        name: ifname,
        owner: res.owner,
        action: "ensure",
        applyWith: "wireguard",
        // The public key is filled in from privateKeyFile when the desired state is computed (see the core).
        attributes: { ifname, backend: s.backend, privateKeyFile: s.privateKeyFile ?? "", ...(s.listenPort !== undefined ? { listenPort: s.listenPort } : {}), ...(fwmark !== undefined ? { fwmark } : {}) },
      },
      { kind: "linux.link", name: artifactNames.link(ifname), owner: res.owner, action: "ensure", applyWith: "ip-batch", attributes: { ifname, adminUp: true, mtu: s.mtu } },
    ];
    return out;
  },
});

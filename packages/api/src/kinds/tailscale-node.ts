// A Tailscale node: tailscaled supervised like routerd's own daemons (serve's built-in supervisor, or with
// `--supervisor systemd` a unit routerd generates: routerd-tailscale-<name>.service; an rc.d script on
// FreeBSD) and `tailscale up` with the arguments the spec implies. The auth key is read by tailscale from
// its file (`--auth-key=file:<path>`): it never appears on a command line.
import { artifactNames, type ArtifactIntent } from "@routerd/resource";
import { API_GROUPS, defineKind } from "../kind.js";
import { t, type Infer } from "../schema.js";
import { ipNetwork } from "./dns-common.js";

export const tailscaleNodeSpec = t.object({
  hostname: t.optional(t.string({ pattern: /^[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?$/, patternHint: "a host name label like router1" }).describe("the node's name in the tailnet (default: the host name)")),
  loginServer: t.optional(t.string({ pattern: /^https?:\/\/[^\s]+$/, patternHint: "a URL like https://headscale.example.net" }).describe("control server (Headscale); default Tailscale's")),
  authKeyFile: t.optional(t.string({ pattern: /^\//, patternHint: "an absolute path" }).describe("file holding the auth key (mode 0600); tailscale reads it itself, the key is never on a command line")),
  authKey: t.optional(t.string().describe("not accepted: use authKeyFile")),
  authKeyEnv: t.optional(t.string().describe("not accepted: use authKeyFile (a key from the environment would reach tailscale up's command line)")),
  advertiseRoutes: t.withDefault(t.array(ipNetwork(), { unique: true }).describe("subnets this node routes for the tailnet"), []),
  advertiseExitNode: t.withDefault(t.bool().describe("offer this node as an exit node"), false),
  advertiseTags: t.withDefault(t.array(t.string({ pattern: /^tag:[A-Za-z0-9][A-Za-z0-9-]*$/, patternHint: "a tag like tag:router" }), { unique: true }).describe("ACL tags the node asks for"), []),
  acceptRoutes: t.withDefault(t.bool().describe("use subnet routes other nodes advertise"), false),
  // A router answers DNS itself: the tailnet's DNS settings are not taken unless asked for.
  acceptDNS: t.withDefault(t.bool().describe("take the tailnet's DNS settings (default false on a router)"), false),
  ssh: t.withDefault(t.bool().describe("run Tailscale SSH"), false),
  shieldsUp: t.withDefault(t.bool().describe("refuse incoming connections from the tailnet"), false),
  state: t.withDefault(t.enum("present", "absent").describe("absent: log the node out and remove what routerd created"), "present"),
});

export type TailscaleNodeSpec = Infer<typeof tailscaleNodeSpec>;

export const TAILSCALE = {
  tailscaled: "/usr/sbin/tailscaled",
  tailscale: "/usr/bin/tailscale",
  freebsdTailscaled: "/usr/local/bin/tailscaled",
  freebsdTailscale: "/usr/local/bin/tailscale",
};

/** The daemon name tailscaled runs under (sockets <run-dir>/tailscale/<name>.sock, state <state-dir>/tailscale/<name>). */
export const TAILSCALE_DAEMON = "tailscale";

export const tailscaleUnitName = (name: string) => `routerd-tailscale-${name}.service`;
/** tailscaled's state and socket, per node (under routerd's directories, never Tailscale's defaults). */
export const tailscaleStateDir = (name: string) => `/var/lib/routerd/tailscale/${name}`;
export const tailscaleSocket = (name: string) => `/run/routerd/tailscale/${name}.sock`;
/** The tun device: Linux names are at most 15 characters. */
export const tailscaleIfname = (name: string) => `ts-${name}`.slice(0, 15);

/** `tailscale up`'s arguments (after the binary and its --socket). Pure; golden-tested with the unit. */
export function tailscaleUpArgs(s: TailscaleNodeSpec): string[] {
  const bool = (flag: string, v: boolean) => `--${flag}=${v}`;
  return [
    "up",
    // --reset: a flag dropped from the spec goes back to its default instead of making `up` refuse.
    "--reset",
    ...(s.hostname ? [`--hostname=${s.hostname}`] : []),
    ...(s.loginServer ? [`--login-server=${s.loginServer}`] : []),
    ...(s.authKeyFile ? [`--auth-key=file:${s.authKeyFile}`] : []),
    ...(s.advertiseRoutes.length ? [`--advertise-routes=${s.advertiseRoutes.join(",")}`] : []),
    ...(s.advertiseTags.length ? [`--advertise-tags=${s.advertiseTags.join(",")}`] : []),
    bool("advertise-exit-node", s.advertiseExitNode),
    bool("accept-routes", s.acceptRoutes),
    bool("accept-dns", s.acceptDNS),
    bool("ssh", s.ssh),
    bool("shields-up", s.shieldsUp),
    // Bounded: a unit's start must not hang on a control server that does not answer.
    "--timeout=60s",
  ];
}

export const tailscaleNodeKind = defineKind<TailscaleNodeSpec>({
  apiVersion: API_GROUPS.net,
  kind: "TailscaleNode",
  description: "A Tailscale node: tailscaled supervised by routerd serve (or, with --supervisor systemd, a unit routerd generates: routerd-tailscale-<name>.service) and `tailscale up` with the spec's arguments; the auth key only from a file.",
  class: "system",
  contract: { type: "ArtifactKinds", artifactKinds: ["routerd.daemon", "systemd.service"] },
  supportsWhen: true,
  spec: tailscaleNodeSpec,
  // tailnetName and peerCount: routerd serve reads them from `tailscale status --json` (facts).
  status: (res, _view, facts) => ({
    fields: {
      advertiseRoutes: res.spec.state === "present" ? res.spec.advertiseRoutes : [],
      ...(res.spec.state === "present" && typeof facts?.tailnetName === "string" ? { tailnetName: facts.tailnetName } : {}),
      ...(res.spec.state === "present" && typeof facts?.peerCount === "number" ? { peerCount: facts.peerCount } : {}),
    },
  }),
  provides: { tailnetName: "string", peerCount: "int", advertiseRoutes: "stringList" },
  check(res, ctx) {
    const s = res.spec;
    if (s.authKey !== undefined) ctx.error(["authKey"], "an auth key is not accepted inside the config (it would end up in backups, diffs and plans)", "write it to a file (umask 077) and set authKeyFile");
    if (s.authKeyEnv !== undefined) ctx.error(["authKeyEnv"], "an auth key from the environment would be passed on tailscale up's command line, visible in ps", "write it to a file (umask 077) and set authKeyFile");
    if (!/^[a-z0-9][a-z0-9-]{0,11}$/.test(res.metadata.name)) ctx.error([], `the name ${res.metadata.name} must be 1-12 lower-case letters, digits or dashes: it names the unit and the tun device ts-<name>`);
    if (s.advertiseExitNode && s.shieldsUp) ctx.warn(["shieldsUp"], "an exit node with shieldsUp refuses the connections it would carry");
    for (const other of ctx.all<TailscaleNodeSpec>("TailscaleNode")) {
      if (other.index < res.index) ctx.error([], `TailscaleNode/${other.metadata.name} exists already; a host runs one tailscale node (one tailscaled, one UDP port)`);
    }
  },
  intents(res) {
    if (res.spec.state === "absent") return []; // what routerd created is removed (and logged out) by cleanup
    // tailscaled is a supervised daemon; `--supervisor systemd` turns this into routerd-tailscale-<name>.service.
    const intent: ArtifactIntent = {
      kind: "routerd.daemon",
      name: artifactNames.daemon(TAILSCALE_DAEMON, res.metadata.name),
      owner: res.owner,
      action: "ensure",
      applyWith: "supervisor",
      // logout: the node leaves its tailnet before tailscaled stops for good.
      attributes: { daemon: TAILSCALE_DAEMON, instance: res.metadata.name, logout: { command: "tailscale" } },
    };
    return [intent];
  },
});

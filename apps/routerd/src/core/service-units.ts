// Who runs the daemons a config needs. "builtin" (the default): routerd serve's own supervisor, the
// `routerd.daemon` intents as they are. "systemd" (Linux) and "rc.d" (FreeBSD): every daemon with a renderer
// here becomes a generated service artifact instead, so nothing runs twice:
// - systemd: a `systemd.service` artifact (routerd-*.service only): routerd's own daemons as
//   routerd-<daemon>@<instance>.service (the exact command line serve would run), a TailscaleNode as
//   routerd-tailscale-<name>.service;
// - rc.d: a `freebsd.rcScript` artifact (routerd_* only): routerd_<daemon>_<instance> with the same command
//   line, a TailscaleNode as routerd_tailscale_<name>, each enabled by its own /etc/rc.conf.d/<name>.
// Pure: intents in, intents out.
import { TAILSCALE, TAILSCALE_DAEMON, tailscaleSocket, tailscaleUnitName, type ConfigView, type Resource, type TailscaleNodeSpec } from "@routerd/api";
import { PROGRAMS, freebsdTailscaleSocket, rcInstanceName, renderRcEnable, renderRcInstanceScript, renderSystemdInstanceUnit, renderTailscaleRc, renderTailscaleUnit, tailscaleRcName, type ProgramSpec } from "@routerd/render";
import { artifactNames, type ArtifactIntent, type ArtifactKind, type Attributes } from "@routerd/resource";
import { DAEMON_KINDS, type DaemonDirs } from "../serve/daemons.js";

export const SUPERVISORS = ["builtin", "systemd", "rc.d"] as const;
export type SupervisorMode = (typeof SUPERVISORS)[number];
type ServiceManager = Exclude<SupervisorMode, "builtin">;

export interface UnitContext {
  view: ConfigView;
  dirs: DaemonDirs;
}

interface Generated {
  /** The unit or script name. */
  name: string;
  content: string;
  /** Extra attributes for the executor (a tailscale node logs out before its unit goes). */
  attributes?: Attributes;
}

type Renderer = (instance: string, owner: Resource, ctx: UnitContext) => Generated | undefined;

/** The instance's unit name for one of routerd's own daemons. */
export const daemonUnitName = (daemon: string, instance: string) => `routerd-${daemon}@${instance}.service`;

const program = (daemon: string): ProgramSpec => PROGRAMS.find((p) => p.daemon === daemon)!;

/** The instance's service name under a service manager (what `systemctl` or `service` is told). */
export function serviceName(mode: ServiceManager, daemon: string, instance: string): string {
  return mode === "systemd" ? daemonUnitName(daemon, instance) : rcInstanceName(program(daemon), instance);
}

/** routerd's own daemon: this instance's arguments (after the program in serve's command), rendered for a manager. */
const ownDaemon =
  (daemon: string, render: (p: ProgramSpec, instance: string, args: string[], ctx: UnitContext) => Generated): Renderer =>
  (instance, _owner, ctx) => {
    const spec = DAEMON_KINDS.find((k) => k.daemon === daemon)?.specs(ctx.view, ctx.dirs).find((s) => s.instance === instance);
    if (!spec) return undefined;
    return render(program(daemon), instance, spec.command.slice(spec.command.indexOf(spec.match) + 1), ctx);
  };

const ownDaemons = (render: (p: ProgramSpec, instance: string, args: string[], ctx: UnitContext) => Generated) =>
  Object.fromEntries(PROGRAMS.filter((p) => p.daemon).map((p) => [p.daemon!, ownDaemon(p.daemon!, render)]));

interface Manager {
  kind: ArtifactKind;
  /** The attribute that carries the name (the executors' guard reads it). */
  key: "unit" | "script";
  renderers: Readonly<Record<string, Renderer>>;
  /** Extra attributes of every artifact of this manager. */
  extra?: (name: string) => Attributes;
}

const MANAGERS: Readonly<Record<ServiceManager, Manager>> = {
  systemd: {
    kind: "systemd.service",
    key: "unit",
    renderers: {
      ...ownDaemons((p, instance, args) => ({ name: daemonUnitName(p.daemon!, instance), content: renderSystemdInstanceUnit(p, instance, args) })),
      [TAILSCALE_DAEMON]: (instance, owner) => ({
        name: tailscaleUnitName(instance),
        content: renderTailscaleUnit(owner.metadata.name, owner.spec as TailscaleNodeSpec),
        attributes: { logout: { command: TAILSCALE.tailscale, socket: tailscaleSocket(instance) } },
      }),
    },
  },
  "rc.d": {
    kind: "freebsd.rcScript",
    key: "script",
    renderers: {
      ...ownDaemons((p, instance, args, ctx) => ({ name: rcInstanceName(p, instance), content: renderRcInstanceScript(p, instance, args, ctx.dirs.runDir) })),
      [TAILSCALE_DAEMON]: (instance, owner) => ({
        name: tailscaleRcName(instance),
        content: renderTailscaleRc(owner.metadata.name, owner.spec as TailscaleNodeSpec),
        attributes: { logout: { command: TAILSCALE.freebsdTailscale, socket: freebsdTailscaleSocket(instance) } },
      }),
    },
    extra: (name) => ({ enableText: renderRcEnable(name) }),
  },
};

/** Under this supervisor the daemon runs as a generated unit or script, not under serve's built-in supervisor. */
export const runsAsUnit = (daemon: string, mode: SupervisorMode): boolean => mode !== "builtin" && daemon in MANAGERS[mode].renderers;

/** The owner's intents for this supervisor: daemons as units or rc.d scripts under a service manager, unchanged otherwise. */
export function forSupervisor(intents: ArtifactIntent[], owner: Resource, mode: SupervisorMode, ctx: UnitContext): ArtifactIntent[] {
  if (mode === "builtin") return intents;
  const manager = MANAGERS[mode];
  return intents.map((i) => {
    const daemon = String(i.attributes.daemon);
    const generated = i.kind === "routerd.daemon" && runsAsUnit(daemon, mode) ? manager.renderers[daemon]!(String(i.attributes.instance), owner, ctx) : undefined;
    if (!generated) return i;
    return {
      kind: manager.kind,
      name: manager.kind === "systemd.service" ? artifactNames.unit(generated.name) : artifactNames.rcScript(generated.name),
      owner: i.owner,
      action: i.action,
      applyWith: mode,
      attributes: { [manager.key]: generated.name, daemon, instance: i.attributes.instance, enabled: true, content: generated.content, ...manager.extra?.(generated.name), ...generated.attributes },
    };
  });
}

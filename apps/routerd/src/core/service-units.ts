// Who runs the daemons a config needs. "builtin" (the default): routerd serve's own supervisor, the
// `routerd.daemon` intents as they are. "systemd": every daemon with a unit renderer here becomes a
// generated unit instead (a `systemd.service` artifact, routerd-*.service only), so nothing runs twice:
// routerd's own daemons as routerd-<daemon>@<instance>.service (the exact command line serve would run),
// a TailscaleNode as routerd-tailscale-<name>.service. Pure: intents in, intents out.
import { TAILSCALE, TAILSCALE_DAEMON, tailscaleSocket, tailscaleUnitName, type ConfigView, type Resource, type TailscaleNodeSpec } from "@routerd/api";
import { PROGRAMS, renderSystemdInstanceUnit, renderTailscaleUnit } from "@routerd/render";
import { artifactNames, type ArtifactIntent, type Attributes } from "@routerd/resource";
import { DAEMON_KINDS, type DaemonDirs } from "../serve/daemons.js";

export const SUPERVISORS = ["builtin", "systemd"] as const;
export type SupervisorMode = (typeof SUPERVISORS)[number];

export interface UnitContext {
  view: ConfigView;
  dirs: DaemonDirs;
}

interface GeneratedUnit {
  unit: string;
  content: string;
  /** Extra attributes for the unit executor (a tailscale node logs out before its unit goes). */
  attributes?: Attributes;
}

type UnitRenderer = (instance: string, owner: Resource, ctx: UnitContext) => GeneratedUnit | undefined;

/** The instance's unit name for one of routerd's own daemons. */
export const daemonUnitName = (daemon: string, instance: string) => `routerd-${daemon}@${instance}.service`;

/** routerd's own daemon: the template's hardening, this instance's arguments (after the program in serve's command). */
const ownDaemon =
  (daemon: string): UnitRenderer =>
  (instance, _owner, ctx) => {
    const program = PROGRAMS.find((p) => p.daemon === daemon)!;
    const spec = DAEMON_KINDS.find((k) => k.daemon === daemon)?.specs(ctx.view, ctx.dirs).find((s) => s.instance === instance);
    if (!spec) return undefined;
    const args = spec.command.slice(spec.command.indexOf(spec.match) + 1);
    return { unit: daemonUnitName(daemon, instance), content: renderSystemdInstanceUnit(program, instance, args) };
  };

const UNIT_RENDERERS: Readonly<Record<string, UnitRenderer>> = {
  ...Object.fromEntries(PROGRAMS.filter((p) => p.daemon).map((p) => [p.daemon!, ownDaemon(p.daemon!)])),
  [TAILSCALE_DAEMON]: (instance, owner) => ({
    unit: tailscaleUnitName(instance),
    content: renderTailscaleUnit(owner.metadata.name, owner.spec as TailscaleNodeSpec),
    attributes: { logout: { command: TAILSCALE.tailscale, socket: tailscaleSocket(instance) } },
  }),
};

/** Under this supervisor the daemon runs as a generated unit, not under serve's built-in supervisor. */
export const runsAsUnit = (daemon: string, mode: SupervisorMode): boolean => mode === "systemd" && daemon in UNIT_RENDERERS;

/** The owner's intents for this supervisor: daemons as units under systemd, unchanged otherwise. */
export function forSupervisor(intents: ArtifactIntent[], owner: Resource, mode: SupervisorMode, ctx: UnitContext): ArtifactIntent[] {
  if (mode === "builtin") return intents;
  return intents.map((i) => {
    const daemon = String(i.attributes.daemon);
    const generated = i.kind === "routerd.daemon" && runsAsUnit(daemon, mode) ? UNIT_RENDERERS[daemon]!(String(i.attributes.instance), owner, ctx) : undefined;
    if (!generated) return i;
    return {
      kind: "systemd.service",
      name: artifactNames.unit(generated.unit),
      owner: i.owner,
      action: i.action,
      applyWith: "systemd",
      attributes: { unit: generated.unit, daemon, instance: i.attributes.instance, enabled: true, content: generated.content, ...generated.attributes },
    };
  });
}

// One router namespace inside the lab VM driven by `routerd reconcile --once` (a Node start per reconcile,
// no serve): its config, state and root live in the lab's temp dir.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { res, routerYaml, type ResourceDoc } from "../../lib/config.js";
import { sh, type Lab } from "../../lib/lab.js";
import { ROUTERD, sh as run, type Run } from "../../lib/netns.js";

export { res };

export class Router {
  readonly ns: string;
  readonly stateDir: string;
  readonly root: string;
  readonly configPath: string;

  constructor(
    private readonly lab: Lab,
    readonly role: string,
  ) {
    this.ns = lab.netns(role);
    this.stateDir = lab.path(`${role}-state`);
    this.root = lab.path(`${role}-root`);
    this.configPath = lab.path(`${role}.yaml`);
  }

  reconcile(resources: ResourceDoc[], extra: string[] = []): Run {
    writeFileSync(this.configPath, routerYaml(resources, this.role));
    return this.routerd(["reconcile", "--once", "--config", this.configPath, ...extra]);
  }

  /** The built routerd CLI in this router's namespace, with its own state, root and run directories. */
  routerd(args: string[]): Run {
    const dirs = ["--state-dir", this.stateDir, "--root", this.root, "--run-dir", join(this.stateDir, "run")];
    return run("ip", ["netns", "exec", this.ns, process.execPath, ROUTERD, ...args, ...dirs], { allowFail: true });
  }

  /** Fails with routerd's own output when the reconcile did not succeed. */
  apply(resources: ResourceDoc[], extra: string[] = []): Run {
    const r = this.reconcile(resources, extra);
    if (r.code !== 0) throw new Error(`routerd reconcile in ${this.role} failed (${r.code}):\n${r.stdout}\n${r.stderr}`);
    return r;
  }

  /** `routerd plan --json` for these resources (nothing is changed). */
  plan(resources: ResourceDoc[]): { summary: Record<string, number>; adoptionCandidates: { kind: string; name: string }[]; text: string } {
    writeFileSync(this.configPath, routerYaml(resources, this.role));
    const r = this.routerd(["plan", "--json", "--config", this.configPath]);
    const p = JSON.parse(r.stdout) as { summary: Record<string, number>; adoptionCandidates: { kind: string; name: string }[] };
    return { ...p, text: r.stdout };
  }

  ip(...args: string[]): string {
    return sh(["ip", "-n", this.ns, ...args]);
  }

  /** `ip -d -j link`: name → link type ("" for a link without one). */
  links(): Map<string, string> {
    const all = JSON.parse(sh(["ip", "-n", this.ns, "-d", "-j", "link", "show"])) as { ifname: string; linkinfo?: { info_kind?: string } }[];
    return new Map(all.map((l) => [l.ifname, l.linkinfo?.info_kind ?? ""]));
  }

  ping(address: string, extra: string[] = []): boolean {
    return /[1-9] received/.test(sh(["ip", "netns", "exec", this.ns, "ping", "-c", "2", "-W", "2", ...extra, address], { allowFail: true }));
  }
}

/** `<resource> <module> <change>` of the first kernel module (or of `module`) in a `plan --json`. */
export function moduleInPlan(text: string, module?: string): string {
  const plan = JSON.parse(text) as { resources: { id: string; artifacts: { kind: string; name: string; change: string }[] }[] };
  const found = plan.resources.flatMap((x) => x.artifacts.filter((a) => a.kind === "linux.kernelModule" && (module === undefined || a.name === module)).map((a) => `${x.id} ${a.name} ${a.change}`));
  return found[0] ?? "(none)";
}

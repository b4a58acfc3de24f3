import type { CommandRunner } from "./exec.js";

/** Where routerd's files live and how commands run. Every path routerd writes is under `root`. */
export interface HostContext {
  root: string;
  stateDir: string;
  runDir: string;
  runner: CommandRunner;
}

export function rooted(ctx: Pick<HostContext, "root">, path: string): string {
  return ctx.root === "/" || ctx.root === "" ? path : `${ctx.root.replace(/\/$/, "")}${path}`;
}

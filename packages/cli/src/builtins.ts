// Commands every program built on this framework gets the same way: `completion` and `version`.
import type { Command, Program } from "./command.js";
import { SHELLS, completionScript, type Shell } from "./completion.js";

/** `PROGRAM completion bash|zsh`: the program is read when run, so the script covers every command. */
export function completionCommand(name: string, program: () => Program): Command {
  return {
    name: "completion",
    summary: "print a shell completion script (bash or zsh)",
    usage: "completion bash|zsh",
    description:
      "Completes commands, subcommands, options and their values (files, directories and fixed words such as\n" +
      "resource kinds). The script is generated from the same data as --help, so it always matches this build.",
    positionals: [{ name: "SHELL", description: "bash or zsh", complete: SHELLS }],
    options: {},
    examples: [
      { command: `source <(${name} completion bash)`, description: "complete in the current bash session" },
      { command: `${name} completion bash > /etc/bash_completion.d/${name}`, description: "complete in every new bash session" },
      { command: `${name} completion zsh > "\${fpath[1]}/_${name}"`, description: "install for zsh (then restart the shell)" },
    ],
    async run(_v, io, positionals) {
      const shell = positionals[0];
      if (positionals.length !== 1 || !(SHELLS as readonly string[]).includes(shell!)) {
        io.err(`completion needs one shell: ${SHELLS.join(" or ")}${shell ? ` (not ${JSON.stringify(shell)})` : ""}`);
        return 1;
      }
      io.out(completionScript(shell as Shell, program()).trimEnd());
      return 0;
    },
  };
}

export interface VersionInfo {
  program: string;
  version: string;
  [key: string]: string;
}

/** `PROGRAM version [--json]`: the version and the runtime it runs on. */
export function versionCommand(name: string, info: () => VersionInfo): Command {
  return {
    name: "version",
    summary: "print the version (also --version)",
    usage: "version [--json]",
    examples: [{ command: `${name} version --json`, description: "the version, Node.js version and platform as JSON (for bug reports)" }],
    options: { json: { type: "boolean", description: "print {program, version, node, platform} as JSON" } },
    async run(v, io) {
      const i = info();
      if (v.json) io.out(JSON.stringify(i, null, 2));
      else io.out(`${i.program} ${i.version}${Object.entries(i).filter(([k]) => k !== "program" && k !== "version").map(([k, x]) => `\n  ${k}: ${x}`).join("")}`);
      return 0;
    },
  };
}

// Man-page style help, generated from the command data: NAME, SYNOPSIS, DESCRIPTION, OPTIONS, ...
import { visible, type Command, type OptionSpec, type Program } from "./command.js";

const INDENT = "    ";
const HELP_OPTION: OptionSpec = { type: "boolean", short: "h", description: "show this help" };

function indent(text: string, by = INDENT): string {
  return text
    .split("\n")
    .map((l) => (l ? by + l : l))
    .join("\n");
}

function section(title: string, body: string): string {
  return `${title}\n${indent(body)}`;
}

export function optionFlag(name: string, o: OptionSpec): string {
  return `${o.short ? `-${o.short}, ` : ""}--${name}${o.type === "string" ? ` ${o.valueName ?? "VALUE"}` : ""}`;
}

function optionsBody(options: Record<string, OptionSpec>): string {
  return Object.entries({ ...options, help: HELP_OPTION })
    .map(([name, o]) => {
      const def = o.default !== undefined && o.type === "string" ? ` (default ${o.default})` : "";
      return `${optionFlag(name, o)}\n${INDENT}${o.description}${def}`;
    })
    .join("\n");
}

function exitBody(codes: Readonly<Record<number, string>> | undefined): string {
  const table = codes ?? { 0: "success", 1: "failure (the message says why)" };
  return Object.entries(table)
    .map(([code, meaning]) => `${code.padEnd(4)}${meaning}`)
    .join("\n");
}

function commandList(commands: readonly Command[]): string {
  const shown = visible(commands);
  const width = Math.max(0, ...shown.map((c) => c.name.length)) + 2;
  return shown.map((c) => `${c.name.padEnd(width)}${c.summary}`).join("\n");
}

/** `path` is the words before the command's own name, e.g. ["routerctl", "dns"]. */
export function commandHelp(cmd: Command, path: readonly string[]): string {
  const full = [...path, cmd.name].join(" ");
  const parts = [section("NAME", `${full} - ${cmd.summary}`), section("SYNOPSIS", `${path.join(" ")} ${cmd.usage}`)];
  if (cmd.description) parts.push(section("DESCRIPTION", cmd.description));
  if (cmd.subcommands?.length) parts.push(section("COMMANDS", commandList(cmd.subcommands)));
  if (cmd.positionals?.length) parts.push(section("ARGUMENTS", cmd.positionals.map((p) => `${p.name}${p.optional ? " (optional)" : ""}\n${INDENT}${p.description}`).join("\n")));
  parts.push(section("OPTIONS", optionsBody(cmd.options)));
  parts.push(section("EXIT STATUS", exitBody(cmd.exitCodes)));
  if (cmd.examples?.length) parts.push(section("EXAMPLES", cmd.examples.map((e) => `${e.command}\n${indent(e.description)}`).join("\n\n")));
  if (cmd.seeAlso?.length) parts.push(section("SEE ALSO", cmd.seeAlso.join(", ")));
  return parts.join("\n\n");
}

export function programHelp(program: Program): string {
  const parts = [
    section("NAME", `${program.name} - ${program.summary.split("\n")[0]}`),
    section("SYNOPSIS", `${program.name} COMMAND [OPTIONS]\n${program.name} COMMAND --help\n${program.name} --version`),
  ];
  if (program.description) parts.push(section("DESCRIPTION", program.description));
  parts.push(section("COMMANDS", commandList(program.commands)));
  parts.push(`Run '${program.name} COMMAND --help' for a command's manual.`);
  return parts.join("\n\n");
}

// Dispatch: find the command (descending into groups), parse its flags strictly, run it.
import { parseArgs, type ParseArgsConfig } from "node:util";
import type { Command, Io, OptionValues, Program } from "./command.js";
import { commandHelp, programHelp } from "./help.js";

const isHelp = (word: string | undefined) => word === "--help" || word === "-h" || word === "help";

export async function runCli(program: Program, argv: readonly string[], io: Io): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || isHelp(name)) {
    io.out(programHelp(program));
    return name ? 0 : 1;
  }
  if (name === "--version") {
    io.out(`${program.name} ${program.version ?? "unknown"}`);
    return 0;
  }
  return runCommand(program.commands, [program.name], name, rest, io, () => programHelp(program));
}

async function runCommand(commands: readonly Command[], path: string[], name: string, rest: string[], io: Io, parentHelp: () => string): Promise<number> {
  const cmd = commands.find((c) => c.name === name);
  if (!cmd) {
    io.err(`${path.join(" ")}: unknown command ${JSON.stringify(name)}\n\n${parentHelp()}`);
    return 1;
  }
  const [next, ...after] = rest;
  if (cmd.subcommands?.length && next !== undefined && !next.startsWith("-")) {
    return runCommand(cmd.subcommands, [...path, cmd.name], next, after, io, () => commandHelp(cmd, path));
  }
  const options: NonNullable<ParseArgsConfig["options"]> = { help: { type: "boolean", short: "h" } };
  for (const [k, o] of Object.entries(cmd.options)) {
    options[k] = { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.default !== undefined ? { default: o.default } : {}) } as never;
  }
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options, allowPositionals: true, strict: true });
  } catch (err) {
    io.err(`${[...path, cmd.name].join(" ")}: ${(err as Error).message}\nRun '${[...path, cmd.name].join(" ")} --help' for its options.`);
    return 1;
  }
  if (parsed.values.help) {
    io.out(commandHelp(cmd, path));
    return 0;
  }
  if (!cmd.run) {
    io.err(commandHelp(cmd, path));
    return 1;
  }
  return cmd.run(parsed.values as OptionValues, io, parsed.positionals);
}

// A tiny command framework: commands are data (name, summary, options, run), so --help is generated.
import { parseArgs, type ParseArgsConfig } from "node:util";

export interface OptionSpec {
  type: "string" | "boolean";
  description: string;
  default?: string | boolean;
  short?: string;
  valueName?: string;
}

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
}

export interface Command {
  name: string;
  summary: string;
  usage: string;
  description?: string;
  options: Record<string, OptionSpec>;
  run(values: Record<string, string | boolean | undefined>, io: Io, positionals: string[]): Promise<number>;
}

export function commandHelp(cmd: Command, program: string): string {
  const lines = [`Usage: ${program} ${cmd.usage}`, "", cmd.summary];
  if (cmd.description) lines.push("", cmd.description);
  lines.push("", "Options:");
  const opts = { ...cmd.options, help: { type: "boolean", description: "show this help" } as OptionSpec };
  for (const [name, o] of Object.entries(opts)) {
    const flag = `  ${o.short ? `-${o.short}, ` : ""}--${name}${o.type === "string" ? ` ${o.valueName ?? "VALUE"}` : ""}`;
    const def = o.default !== undefined && o.type === "string" ? ` (default ${o.default})` : "";
    lines.push(`${flag.padEnd(30)} ${o.description}${def}`);
  }
  return lines.join("\n");
}

export function programHelp(program: string, summary: string, commands: readonly Command[]): string {
  const width = Math.max(...commands.map((c) => c.name.length)) + 2;
  return [
    `Usage: ${program} <command> [options]`,
    "",
    summary,
    "",
    "Commands:",
    ...commands.map((c) => `  ${c.name.padEnd(width)}${c.summary}`),
    "",
    `Run '${program} <command> --help' for a command's options.`,
  ].join("\n");
}

export async function runCli(program: string, summary: string, commands: readonly Command[], argv: string[], io: Io): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === "--help" || name === "-h" || name === "help") {
    io.out(programHelp(program, summary, commands));
    return name ? 0 : 1;
  }
  const cmd = commands.find((c) => c.name === name);
  if (!cmd) {
    io.err(`${program}: unknown command ${JSON.stringify(name)}\n\n${programHelp(program, summary, commands)}`);
    return 1;
  }
  const options: NonNullable<ParseArgsConfig["options"]> = { help: { type: "boolean", short: "h" } };
  for (const [k, o] of Object.entries(cmd.options)) {
    options[k] = { type: o.type, ...(o.short ? { short: o.short } : {}), ...(o.default !== undefined ? { default: o.default } : {}) } as never;
  }
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options, allowPositionals: true, strict: true });
  } catch (err) {
    io.err(`${program} ${cmd.name}: ${(err as Error).message}\n\n${commandHelp(cmd, program)}`);
    return 1;
  }
  if (parsed.values.help) {
    io.out(commandHelp(cmd, program));
    return 0;
  }
  return cmd.run(parsed.values as Record<string, string | boolean | undefined>, io, parsed.positionals);
}

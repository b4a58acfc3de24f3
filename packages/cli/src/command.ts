// What a command is: data (name, summary, options, positionals, examples) plus a run function. Help text,
// argument parsing and shell completion are all derived from this data, so adding a command is one entry.

/** How a shell completes a value: fixed words, a file name or a directory name. */
export type Completion = readonly string[] | "file" | "dir";

export interface OptionSpec {
  type: "string" | "boolean";
  description: string;
  default?: string | boolean;
  short?: string;
  valueName?: string;
  /** Completion for the option's value (string options). */
  complete?: Completion;
}

export interface PositionalSpec {
  name: string;
  description: string;
  optional?: boolean;
  complete?: Completion;
}

export interface Example {
  command: string;
  description: string;
}

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
}

export type OptionValues = Record<string, string | boolean | undefined>;

export interface Command {
  name: string;
  /** One line, lower case, no final full stop: shown in command lists and after NAME. */
  summary: string;
  /** The synopsis without the program name, e.g. `plan --config FILE [--json]`. */
  usage: string;
  /** Paragraphs for DESCRIPTION. */
  description?: string;
  options: Record<string, OptionSpec>;
  positionals?: readonly PositionalSpec[];
  examples?: readonly Example[];
  /** Exit status → meaning, for EXIT STATUS. Commands without it document 0 success, 1 failure. */
  exitCodes?: Readonly<Record<number, string>>;
  seeAlso?: readonly string[];
  /** Left out of help lists and completion (internal helpers such as a watchdog). */
  hidden?: boolean;
  /** A group: `routerctl dns stats` is the subcommand `stats` of the group `dns`. */
  subcommands?: readonly Command[];
  /** Required unless the command is a group (a group without run prints its help). */
  run?(values: OptionValues, io: Io, positionals: string[]): Promise<number>;
}

export interface Program {
  name: string;
  summary: string;
  description?: string;
  /** Printed by `--version`. */
  version?: string;
  commands: readonly Command[];
}

/** Commands shown to people (help, completion). */
export function visible(commands: readonly Command[]): Command[] {
  return commands.filter((c) => !c.hidden);
}

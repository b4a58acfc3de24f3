// A small data-driven command framework: commands are data (name, summary, options, positionals, examples),
// so man-style --help, strict flag parsing and bash/zsh completion are generated from one description.
export { visible, type Command, type Completion, type Example, type Io, type OptionSpec, type OptionValues, type PositionalSpec, type Program } from "./command.js";
export { commandHelp, optionFlag, programHelp } from "./help.js";
export { runCli } from "./run.js";
export { SHELLS, bashCompletion, completionScript, zshCompletion, type Shell } from "./completion.js";
export { completionCommand, versionCommand, type VersionInfo } from "./builtins.js";

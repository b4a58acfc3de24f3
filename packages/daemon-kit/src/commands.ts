// The Command rpc: a table of named handlers plus the built-in "reload"; failures become ok=false replies.
import type { CommandResponse } from "@routerd/rpc";
import type { Logger } from "pino";
import type { CommandHandler, DaemonContext } from "./options.js";
import type { EventInput } from "./types.js";

export const RELOAD_COMMAND = "reload";

export interface CommandDeps {
  handlers: Readonly<Record<string, CommandHandler>>;
  reload: () => Promise<void>;
  ctx: DaemonContext;
  logger: Logger;
  emit: (input: EventInput) => void;
}

export function commandNames(handlers: Readonly<Record<string, CommandHandler>>): string[] {
  return [RELOAD_COMMAND, ...Object.keys(handlers)].sort();
}

export async function runCommand(deps: CommandDeps, name: string, args: Record<string, string>): Promise<CommandResponse> {
  const handler: CommandHandler | undefined =
    name === RELOAD_COMMAND ? () => deps.reload() : Object.hasOwn(deps.handlers, name) ? deps.handlers[name] : undefined;
  const reply = handler === undefined ? unknownCommand(deps, name) : await invoke(handler, args, deps.ctx);
  deps.logger.info({ command: name, ok: reply.ok, reply: reply.message }, "command handled");
  deps.emit({
    topic: "daemon.command",
    severity: reply.ok ? "info" : "warning",
    message: reply.message ? `${name}: ${reply.message}` : name,
    attributes: { command: name, ok: reply.ok },
  });
  return reply;
}

function unknownCommand(deps: CommandDeps, name: string): CommandResponse {
  const known = commandNames(deps.handlers).join(", ");
  return { ok: false, message: `unknown command ${JSON.stringify(name)}; this daemon accepts: ${known}`, detailsJson: "" };
}

async function invoke(handler: CommandHandler, args: Record<string, string>, ctx: DaemonContext): Promise<CommandResponse> {
  try {
    const result = (await handler(args, ctx)) ?? {};
    return {
      ok: result.ok ?? true,
      message: result.message ?? "",
      detailsJson: result.details === undefined ? "" : JSON.stringify(result.details),
    };
  } catch (err) {
    return { ok: false, message: err instanceof Error ? err.message : String(err), detailsJson: "" };
  }
}

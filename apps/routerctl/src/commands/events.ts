import type { Command } from "@routerd/cli";
import { eventToJson, eventToText } from "../format.js";
import { SOCKET_OPTIONS, withDaemon } from "./common.js";

export const eventsCommand: Command = {
  name: "events",
  summary: "recent events of routerd (or of a daemon with --daemon NAME[/INSTANCE]); --follow streams new ones",
  usage: "events [--follow] [--topic PREFIX] [--daemon NAME[/INSTANCE]] [--json] [--run-dir DIR]",
  description: "Replays the events the daemon still holds, then stops (or keeps streaming with --follow; Ctrl-C ends).",
  options: {
    ...SOCKET_OPTIONS,
    follow: { type: "boolean", short: "f", description: "keep streaming new events" },
    topic: { type: "string", valueName: "PREFIX", description: "only topics starting with PREFIX" },
    daemon: { type: "string", valueName: "NAME", description: "a daemon instead of routerd (e.g. healthcheck, dhcpv4-client/wan)" },
  },
  examples: [
    { command: "routerctl events --follow --topic reconcile", description: "stream routerd's reconcile results" },
    { command: "routerctl events --daemon dhcpv4-client/wan", description: "what the DHCPv4 client on wan did" },
  ],
  run(v, io) {
    const [daemon, instance] = v.daemon ? (String(v.daemon).split("/") as [string, string?]) : ["routerd", "core"];
    return withDaemon(v, io, daemon, instance ?? "default", async (c) => {
      const abort = new AbortController();
      const stop = () => abort.abort();
      process.once("SIGINT", stop);
      // Replay what the daemon still holds; without --follow stop once the replay has gone quiet.
      let quiet: NodeJS.Timeout | undefined;
      const arm = () => {
        if (v.follow) return;
        clearTimeout(quiet);
        quiet = setTimeout(stop, 300);
      };
      arm();
      for await (const e of c.watchEvents({ afterSeq: 0, ...(v.topic ? { topicPrefixes: [String(v.topic)] } : {}), signal: abort.signal })) {
        io.out(v.json ? JSON.stringify(eventToJson(e)) : eventToText(e));
        arm();
      }
      clearTimeout(quiet);
      process.off("SIGINT", stop);
    });
  },
};

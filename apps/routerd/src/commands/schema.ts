import { routerJsonSchema } from "@routerd/api";
import type { Command } from "@routerd/cli";

export const schemaCommand: Command = {
  name: "schema",
  summary: "print the JSON Schema of the config (for yaml-language-server and editors)",
  usage: "schema",
  description: "Point editors at it with a first line like:\n  # yaml-language-server: $schema=/path/to/router.schema.json",
  examples: [{ command: "routerd schema > router.schema.json", description: "save the schema for an editor" }],
  options: {},
  async run(_v, io) {
    io.out(JSON.stringify(routerJsonSchema(), null, 2));
    return 0;
  },
};

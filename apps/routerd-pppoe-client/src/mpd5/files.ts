// `routerd-pppoe-client mpd5-files --config FILE --instance NAME --dir DIR`: writes mpd5's files for the
// session (FreeBSD), for mpd5's own rc.d service (`mpd5 -d DIR ... routerd_<name>`): mpd.conf, mpd.secret
// (0600) and the up- and down-scripts that report to the daemon's socket.
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { daemonSocketPath, DEFAULT_RUN_DIR } from "@routerd/rpc/socket-path";
import { writeFileAtomic } from "@routerd/resource";
import { loadSessionConfig, readPassword } from "../config.js";
import { DAEMON_NAME } from "../names.js";
import { mpdLabel, renderMpdConf, renderMpdScript, renderMpdSecret } from "./render.js";

export async function writeMpd5Files(argv: string[]): Promise<number> {
  const { values } = parseArgs({
    args: argv,
    strict: true,
    options: { config: { type: "string" }, instance: { type: "string" }, dir: { type: "string" }, "run-dir": { type: "string", default: DEFAULT_RUN_DIR } },
  });
  if (!values.config || !values.instance || !values.dir) {
    process.stderr.write("usage: routerd-pppoe-client mpd5-files --config FILE --instance NAME --dir DIR [--run-dir DIR]\n");
    return 2;
  }
  const config = await loadSessionConfig(resolve(values.config));
  const dir = resolve(values.dir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const hook = { node: process.execPath, program: resolve(process.argv[1] ?? ""), socket: daemonSocketPath(values["run-dir"]!, DAEMON_NAME, values.instance), log: join(dir, "hooks.log") };
  writeFileAtomic(join(dir, "mpd.conf"), renderMpdConf(config, { instance: values.instance, upScript: join(dir, "up"), downScript: join(dir, "down") }), 0o600);
  writeFileAtomic(join(dir, "mpd.secret"), renderMpdSecret(config.username, await readPassword(config), values.instance), 0o600);
  writeFileAtomic(join(dir, "up"), renderMpdScript("up", hook), 0o700);
  writeFileAtomic(join(dir, "down"), renderMpdScript("down", hook), 0o700);
  process.stdout.write(`wrote ${dir}/{mpd.conf,mpd.secret,up,down}; start it with: mpd5 -b -d ${dir} -p ${dir}/mpd5.pid ${mpdLabel(values.instance)}\n`);
  return 0;
}

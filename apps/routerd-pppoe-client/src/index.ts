// @routerd/pppoe-client: the config contract routerd serve writes and the session model. The daemon is main.ts.
export { AUTH_METHODS, ConfigError, parseSessionConfig, type AuthMethod, type SessionConfig } from "./config.js";
export { DAEMON_NAME, HOOK_COMMAND, RESOURCE_KIND } from "./names.js";
export { HOLDING_PHASE } from "./status-view.js";

// Where routerd-pppoe-client lives. Must match PPPOE_CLIENT_DAEMON in @routerd/api (names.test.ts checks).
export const DAEMON_NAME = "pppoe-client";
/** The resource kind the daemon's one resource reports as. */
export const RESOURCE_KIND = "PPPoESession";
/** The Command that pppd's hooks send (hook/report.ts). Listed by GetStatus like any command. */
export const HOOK_COMMAND = "pppd-hook";

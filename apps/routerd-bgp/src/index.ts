// @routerd/bgp: the config contract routerd serve writes and client helpers for the daemon's socket. The
// daemon itself is main.ts.
export { ConfigError, loadBgpConfig, parseBgpConfig, type BgpConfig, type PeerConfig } from "./config/config.js";
export { DAEMON_NAME, bgpSocketPath, gobgpdPaths } from "./names.js";
export { listBgpPeers, listBgpRoutes } from "./client.js";

// @routerd/dns-resolver: the config contract routerd serve writes, and client helpers for the resolver's
// socket. The daemon itself is main.ts.
export {
  ConfigError,
  PROTOCOLS,
  loadResolverConfig,
  parseResolverConfig,
  parseResolverConfigText,
  type CacheConfig,
  type DhcpNamesConfig,
  type ForwarderConfig,
  type HealthcheckConfig,
  type ListenConfig,
  type QueryLogConfig,
  type RecordConfig,
  type ResolverConfig,
  type UpstreamConfig,
  type UpstreamProtocol,
  type ZoneConfig,
} from "./config/config.js";
export { DAEMON_NAME, dnsResolverSocketPath } from "./names.js";

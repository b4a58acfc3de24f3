// @routerd/rpc/dns: routerd-dns-resolver's own service over its socket (stats, flush, lookup), for routerctl
// and tests. A subpath of its own, so programs that never talk to the resolver do not load its contract.
import { credentials, Metadata, type ServiceError } from "@grpc/grpc-js";
import { ResolverClient, type GetStatsResponse, type LookupResponse } from "./gen/routerd/dns/v1/resolver.js";
import { unixTarget } from "./socket-path.js";

export interface ClientOptions {
  timeoutMs?: number;
}

function call<Res>(socketPath: string, options: ClientOptions, invoke: (c: ResolverClient, md: Metadata, opts: { deadline: number }, cb: (err: ServiceError | null, res: Res) => void) => void): Promise<Res> {
  const client = new ResolverClient(unixTarget(socketPath), credentials.createInsecure());
  return new Promise<Res>((resolve, reject) => {
    invoke(client, new Metadata(), { deadline: Date.now() + (options.timeoutMs ?? 5000) }, (err, res) => {
      client.close();
      if (err) reject(err);
      else resolve(res);
    });
  });
}

export function getStats(socketPath: string, options: ClientOptions = {}): Promise<GetStatsResponse> {
  return call(socketPath, options, (c, md, o, cb) => c.getStats({}, md, o, cb));
}

/** Removes cached answers for `name` (any type), or all with name "". Resolves with how many. */
export async function flushCache(socketPath: string, name = "", options: ClientOptions = {}): Promise<number> {
  return (await call<{ removed: number }>(socketPath, options, (c, md, o, cb) => c.flush({ name }, md, o, cb))).removed;
}

export function lookupName(socketPath: string, name: string, type = "A", dnssecOk = false, options: ClientOptions = {}): Promise<LookupResponse> {
  return call(socketPath, options, (c, md, o, cb) => c.lookup({ name, type, dnssecOk }, md, o, cb));
}

export type { GetStatsResponse, LookupResponse } from "./gen/routerd/dns/v1/resolver.js";

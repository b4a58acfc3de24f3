// For routerctl and routerd: read a routerd-bgp's neighbors and routes over its socket.
import { credentials, type ServiceError } from "@grpc/grpc-js";
import { unixTarget } from "@routerd/rpc";
import { BgpClient, type ListPeersResponse, type ListRoutesResponse } from "@routerd/rpc/gen/routerd/bgp/v1/bgp";

function unary<Res>(socketPath: string, call: (c: BgpClient, cb: (err: ServiceError | null, res: Res) => void) => void): Promise<Res> {
  const client = new BgpClient(unixTarget(socketPath), credentials.createInsecure());
  return new Promise<Res>((resolve, reject) => call(client, (err, res) => (err ? reject(err) : resolve(res)))).finally(() => client.close());
}

export function listBgpPeers(socketPath: string): Promise<ListPeersResponse> {
  return unary(socketPath, (c, cb) => c.listPeers({}, cb));
}

export function listBgpRoutes(socketPath: string, prefix = "", limit = 0): Promise<ListRoutesResponse> {
  return unary(socketPath, (c, cb) => c.listRoutes({ prefix, limit }, cb));
}

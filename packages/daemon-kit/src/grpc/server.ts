// The gRPC server on a Unix socket: bind with a tight umask, then shut down within a deadline.
import { Server, ServerCredentials, type ServiceDefinition } from "@grpc/grpc-js";
import { unixTarget } from "@routerd/rpc";
import { DaemonStartError } from "../errors.js";
import type { ServiceBinding } from "../options.js";

/** "pkg.Service" from a definition's method paths ("/pkg.Service/Method"). */
export function serviceName(definition: ServiceDefinition): string {
  const first = Object.values(definition)[0];
  return first?.path.split("/")[1] ?? "";
}

export async function startServer(socketPath: string, bindings: readonly ServiceBinding[]): Promise<Server> {
  const server = new Server();
  for (const b of bindings) server.addService(b.definition, b.implementation);
  // The socket must never be reachable with looser permissions than asked for: bind under umask 0177
  // (the caller then applies the final mode and group). umask is process-wide; this runs at startup.
  const previous = setUmask(0o177);
  try {
    await new Promise<void>((done, fail) => {
      server.bindAsync(unixTarget(socketPath), ServerCredentials.createInsecure(), (err) => (err ? fail(err) : done()));
    });
  } catch (err) {
    server.forceShutdown();
    throw new DaemonStartError("BIND_FAILED", `cannot listen on ${socketPath}: ${(err as Error).message}`, socketPath, { cause: err });
  } finally {
    if (previous !== undefined) setUmask(previous);
  }
  return server;
}

/** Worker threads cannot change the umask; there the final chmod alone has to do. */
function setUmask(mask: number): number | undefined {
  try {
    return process.umask(mask);
  } catch {
    return undefined;
  }
}

/** Graceful shutdown; forced when it takes longer than `timeoutMs`. Resolves true when graceful. */
export function shutdownServer(server: Server, timeoutMs: number): Promise<boolean> {
  return new Promise((done) => {
    const timer = setTimeout(() => {
      server.forceShutdown();
      done(false);
    }, Math.max(0, timeoutMs));
    server.tryShutdown(() => {
      clearTimeout(timer);
      done(true);
    });
  });
}

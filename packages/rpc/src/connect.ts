// Typed clients for one daemon's socket: the common Daemon service and grpc.health.v1, on one channel.
import {
  Metadata,
  credentials,
  status,
  type CallOptions as GrpcCallOptions,
  type ChannelOptions,
  type ClientUnaryCall,
  type ServiceError,
} from "@grpc/grpc-js";
import { resolve } from "node:path";
import {
  DaemonClient,
  type CommandResponse,
  type DaemonStatus,
  type Event,
  type GetStatusResponse,
} from "./gen/routerd/daemon/v1/daemon.js";
import { HealthClient, type HealthCheckResponse, type HealthCheckResponse_ServingStatus } from "./gen/grpc/health/v1/health.js";
import { DaemonUnavailableError, diagnoseSocket } from "./daemon-unavailable.js";
import { unixTarget } from "./socket-path.js";

export interface ConnectOptions {
  /** How long to wait for the daemon to accept the gRPC connection. Default 3000 ms. */
  connectTimeoutMs?: number;
  /** Deadline for unary calls made through the helpers. Default 10000 ms. */
  callTimeoutMs?: number;
  channelOptions?: ChannelOptions;
}

export interface CallOptions {
  /** Overrides the connection's callTimeoutMs. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

export interface WatchOptions {
  /** Replay retained events with seq > afterSeq first; omit for live events only. */
  afterSeq?: number;
  /** Only events whose topic starts with one of these. */
  topicPrefixes?: string[];
  /** Ends the iteration without an error. */
  signal?: AbortSignal;
}

export interface DaemonConnection {
  readonly socketPath: string;
  /** Raw generated clients, for calls the helpers do not cover. */
  readonly daemon: DaemonClient;
  readonly health: HealthClient;
  getStatus(options?: CallOptions): Promise<DaemonStatus>;
  command(name: string, args?: Record<string, string>, options?: CallOptions): Promise<CommandResponse>;
  /** grpc.health.v1 Check; "" asks about the daemon as a whole. */
  checkHealth(service?: string, options?: CallOptions): Promise<HealthCheckResponse_ServingStatus>;
  /** Events as an async iterable; breaking out of the loop or aborting cancels the stream. */
  watchEvents(options?: WatchOptions): AsyncIterable<Event>;
  close(): void;
}

type Callback<T> = (err: ServiceError | null, value: T) => void;

/** Connects to `<runDir>/<daemon>/<instance>.sock`; throws DaemonUnavailableError saying what is wrong. */
export async function connectDaemon(socketPath: string, options: ConnectOptions = {}): Promise<DaemonConnection> {
  const path = resolve(socketPath);
  const connectTimeoutMs = options.connectTimeoutMs ?? 3_000;
  const problem = await diagnoseSocket(path, connectTimeoutMs);
  if (problem !== undefined) throw new DaemonUnavailableError(problem, path);

  const target = unixTarget(path);
  const daemon = new DaemonClient(target, credentials.createInsecure(), options.channelOptions);
  const health = new HealthClient(target, credentials.createInsecure(), { channelOverride: daemon.getChannel() });
  try {
    await new Promise<void>((done, fail) => {
      daemon.waitForReady(Date.now() + connectTimeoutMs, (err) => (err ? fail(err) : done()));
    });
  } catch (err) {
    daemon.close();
    throw new DaemonUnavailableError((await diagnoseSocket(path, connectTimeoutMs)) ?? "ETIMEDOUT", path, { cause: err });
  }
  return new Connection(path, daemon, health, options.callTimeoutMs ?? 10_000);
}

class Connection implements DaemonConnection {
  constructor(
    readonly socketPath: string,
    readonly daemon: DaemonClient,
    readonly health: HealthClient,
    private readonly callTimeoutMs: number,
  ) {}

  async getStatus(options?: CallOptions): Promise<DaemonStatus> {
    const reply = await this.unary<GetStatusResponse>(options, (md, opts, cb) => this.daemon.getStatus({}, md, opts, cb));
    if (reply.status === undefined) throw new Error(`${this.socketPath}: GetStatus reply carries no status`);
    return reply.status;
  }

  command(name: string, args: Record<string, string> = {}, options?: CallOptions): Promise<CommandResponse> {
    return this.unary<CommandResponse>(options, (md, opts, cb) => this.daemon.command({ name, args }, md, opts, cb));
  }

  async checkHealth(service = "", options?: CallOptions): Promise<HealthCheckResponse_ServingStatus> {
    const reply = await this.unary<HealthCheckResponse>(options, (md, opts, cb) => this.health.check({ service }, md, opts, cb));
    return reply.status;
  }

  async *watchEvents(options: WatchOptions = {}): AsyncIterable<Event> {
    const { signal } = options;
    if (signal?.aborted) return;
    const call = this.daemon.watchEvents({ afterSeq: options.afterSeq, topicPrefixes: options.topicPrefixes ?? [] });
    const onAbort = (): void => call.cancel();
    signal?.addEventListener("abort", onAbort, { once: true });
    try {
      for await (const event of call as AsyncIterable<Event>) yield event;
    } catch (err) {
      if (signal?.aborted && isServiceError(err) && err.code === status.CANCELLED) return;
      throw await this.explain(err);
    } finally {
      signal?.removeEventListener("abort", onAbort);
      call.cancel();
    }
  }

  close(): void {
    this.daemon.close();
  }

  private async unary<T>(
    options: CallOptions | undefined,
    start: (md: Metadata, opts: Partial<GrpcCallOptions>, cb: Callback<T>) => ClientUnaryCall,
  ): Promise<T> {
    const deadline = Date.now() + (options?.timeoutMs ?? this.callTimeoutMs);
    const signal = options?.signal;
    let cancel: (() => void) | undefined;
    try {
      return await new Promise<T>((done, fail) => {
        const call = start(new Metadata(), { deadline }, (err, value) => (err ? fail(err) : done(value)));
        cancel = () => call.cancel();
        signal?.addEventListener("abort", cancel, { once: true });
      });
    } catch (err) {
      throw await this.explain(err);
    } finally {
      if (cancel) signal?.removeEventListener("abort", cancel);
    }
  }

  /** UNAVAILABLE usually means the daemon went away: say which socket and why. */
  private async explain(err: unknown): Promise<unknown> {
    if (!isServiceError(err) || err.code !== status.UNAVAILABLE) return err;
    const problem = await diagnoseSocket(this.socketPath).catch(() => undefined);
    return problem === undefined ? err : new DaemonUnavailableError(problem, this.socketPath, { cause: err });
  }
}

function isServiceError(err: unknown): err is ServiceError {
  return err instanceof Error && typeof (err as Partial<ServiceError>).code === "number";
}

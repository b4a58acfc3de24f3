// grpc.health.v1 for the daemon: "" and every registered service share the daemon's health.
import { status as grpcStatus, type ServerWritableStream } from "@grpc/grpc-js";
import {
  HealthCheckResponse_ServingStatus as ServingStatus,
  type HealthCheckRequest,
  type HealthCheckResponse,
  type HealthServer,
} from "@routerd/rpc";
import type { Health } from "../types.js";
import type { StreamRegistry } from "./stream-registry.js";

const SERVING_STATUS: Record<Health, ServingStatus> = {
  SERVING: ServingStatus.SERVING,
  NOT_SERVING: ServingStatus.NOT_SERVING,
};

export class HealthState {
  private readonly listeners = new Set<() => void>();

  constructor(
    private readonly services: ReadonlySet<string>,
    private readonly current: () => Health,
  ) {}

  statusOf(service: string): ServingStatus | undefined {
    return service === "" || this.services.has(service) ? SERVING_STATUS[this.current()] : undefined;
  }

  /** Call when the daemon's health may have changed; watchers get the new value. */
  changed(): void {
    for (const listener of [...this.listeners]) listener();
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

export function healthServer(state: HealthState, streams: StreamRegistry): HealthServer {
  return {
    check(call, callback) {
      const status = state.statusOf(call.request.service);
      if (status === undefined) {
        callback({ code: grpcStatus.NOT_FOUND, details: `unknown service ${JSON.stringify(call.request.service)}` });
        return;
      }
      callback(null, { status });
    },
    watch(call: ServerWritableStream<HealthCheckRequest, HealthCheckResponse>) {
      let last: ServingStatus | undefined;
      const send = (): void => {
        const status = state.statusOf(call.request.service) ?? ServingStatus.SERVICE_UNKNOWN;
        if (status === last) return;
        last = status;
        call.write({ status });
      };
      send();
      const unsubscribe = state.onChange(send);
      const untrack = streams.track(() => {
        unsubscribe();
        call.end();
      });
      call.on("cancelled", () => {
        unsubscribe();
        untrack();
      });
    },
  };
}

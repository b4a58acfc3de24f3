// routerd.daemon.v1.Daemon: GetStatus, WatchEvents (replay from a cursor, then live), Command.
import { status as grpcStatus } from "@grpc/grpc-js";
import type { CommandResponse, DaemonServer, DaemonStatus } from "@routerd/rpc";
import { matchesTopics, type EventBus } from "../event-bus.js";
import type { DaemonEvent } from "../types.js";
import { toProtoEvent } from "./proto-mapping.js";
import type { StreamRegistry } from "./stream-registry.js";

export interface DaemonServiceDeps {
  status(): DaemonStatus;
  events: EventBus;
  command(name: string, args: Record<string, string>): Promise<CommandResponse>;
  streams: StreamRegistry;
  /** Events a watcher may have queued before it is cut off (it then resumes from its last seq). */
  maxQueuedEvents: number;
}

export function daemonServer(deps: DaemonServiceDeps): DaemonServer {
  return {
    getStatus(_call, callback) {
      callback(null, { status: deps.status() });
    },

    command(call, callback) {
      deps.command(call.request.name, call.request.args).then(
        (reply) => callback(null, reply),
        (err: unknown) => callback({ code: grpcStatus.INTERNAL, details: String(err) }),
      );
    },

    watchEvents(call) {
      const { afterSeq, topicPrefixes } = call.request;
      let delivered = afterSeq ?? deps.events.lastSeq;
      let open = true;
      let unsubscribe = (): void => {};
      let untrack = (): void => {};
      const finish = (): void => {
        if (!open) return;
        open = false;
        unsubscribe();
        untrack();
      };
      const send = (event: DaemonEvent): void => {
        if (!open || !matchesTopics(event, topicPrefixes)) return;
        if (call.writableLength >= deps.maxQueuedEvents) {
          finish();
          call.emit("error", {
            code: grpcStatus.RESOURCE_EXHAUSTED,
            details: `watcher fell behind by ${call.writableLength} events; resume with after_seq=${delivered}`,
          });
          return;
        }
        call.write(toProtoEvent(event));
        delivered = event.seq;
      };
      // Replay and subscribe in one synchronous turn, so no event falls between them.
      if (afterSeq !== undefined) for (const event of deps.events.replay(afterSeq)) send(event);
      if (!open) return;
      unsubscribe = deps.events.subscribe(send);
      untrack = deps.streams.track(() => {
        finish();
        call.end();
      });
      call.on("cancelled", finish);
      call.on("error", finish);
    },
  };
}

// routerd.pppoe.v1.Sessions: the session view as the generated type.
import type { Session, SessionsServer } from "@routerd/rpc/gen/routerd/pppoe/v1/pppoe";
import type { SessionView } from "./status-view.js";

export function toProtoSession(v: SessionView): Session {
  return { ...v };
}

export function sessionsServer(view: () => SessionView): SessionsServer {
  return {
    getSession(_call, callback) {
      callback(null, { session: toProtoSession(view()) });
    },
  };
}

// The sockopt package (CommonJS) ships no types. It only supports integer-valued options.
declare module "sockopt" {
  import type { Socket as DgramSocket } from "node:dgram";
  import type { Socket as NetSocket } from "node:net";
  const sockopt: {
    setsockopt(socket: DgramSocket | NetSocket, level: number, name: number, value: number): void;
    getsockopt(socket: DgramSocket | NetSocket, level: number, name: number): number;
  };
  export = sockopt;
}

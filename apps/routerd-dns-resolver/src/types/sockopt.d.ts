// The sockopt package (CommonJS) ships no types. It only supports integer-valued options, and reads the
// fd from `socket._handle.fd`: a net or dgram socket after bind/connect, or a raw libuv handle wrapper.
declare module "sockopt" {
  const sockopt: {
    setsockopt(socket: object, level: number, name: number, value: number): void;
    getsockopt(socket: object, level: number, name: number): number;
  };
  export = sockopt;
}

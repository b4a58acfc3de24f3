// setsockopt for the DHCP socket. The sockopt package finds its addon with node-gyp-build, which scans
// directories: about 10 ms of a client that should be bound in a couple of hundred. So the addon file that
// sockopt builds (build/Release) or ships for this platform (prebuilds/<platform>-<arch>) is loaded
// directly, and the package's own loader is only the fallback.
import type { Socket } from "node:dgram";
import { createRequire } from "node:module";

type SetSockOpt = (socket: Socket, level: number, name: number, value: number) => void;
interface Binding {
  setsockopt(fd: number, level: number, name: number, value: number): void;
}

const ADDON_FILES = ["sockopt/build/Release/sockopt.node", `sockopt/prebuilds/${process.platform}-${process.arch}/node.napi.node`];

/** The socket's file descriptor, as sockopt reads it (`_handle` is deprecated, DEP0112: keep the warning off stderr). */
function fdOf(socket: Socket): number {
  const quiet = process.noDeprecation;
  process.noDeprecation = true;
  try {
    const fd = (socket as unknown as { _handle?: { fd?: number } })._handle?.fd;
    if (typeof fd !== "number" || fd < 0) throw new Error("socket has no file descriptor yet (bind it first)");
    return fd;
  } finally {
    process.noDeprecation = quiet;
  }
}

function loadAddon(): Binding | undefined {
  const require = createRequire(import.meta.url);
  for (const file of ADDON_FILES) {
    try {
      const b = require(file) as Partial<Binding>;
      if (typeof b.setsockopt === "function") return b as Binding;
    } catch {
      /* not built or not shipped for this platform */
    }
  }
  return undefined;
}

let loaded: Promise<SetSockOpt> | undefined;

export function loadSetSockOpt(): Promise<SetSockOpt> {
  loaded ??= (async () => {
    const addon = loadAddon();
    if (addon) return (socket, level, name, value) => addon.setsockopt(fdOf(socket), level, name, value);
    const pkg = (await import("sockopt")).default;
    return (socket, level, name, value) => {
      const quiet = process.noDeprecation;
      process.noDeprecation = true;
      try {
        pkg.setsockopt(socket, level, name, value);
      } finally {
        process.noDeprecation = quiet;
      }
    };
  })();
  return loaded;
}

// Whose is a loopback TCP connection? The station accepts only gobgpd's: the connecting socket (local
// port = the connection's remote port, remote port = the station's) must be one of gobgpd's open files.
// Read from /proc (the namespace's TCP tables and gobgpd's fds): no privilege beyond being root's daemon.
import { readFileSync, readdirSync, readlinkSync } from "node:fs";

/** The inode of the TCP socket from localPort to remotePort in this namespace (IPv4 or IPv6 table). */
function socketInode(localPort: number, remotePort: number): string | undefined {
  const want = `:${localPort.toString(16).toUpperCase().padStart(4, "0")} `;
  const peer = `:${remotePort.toString(16).toUpperCase().padStart(4, "0")} `;
  for (const table of ["/proc/net/tcp", "/proc/net/tcp6"]) {
    let text = "";
    try {
      text = readFileSync(table, "utf8");
    } catch {
      continue;
    }
    for (const line of text.split("\n")) {
      // sl local_address rem_address st tx:rx tr:tm retrnsmt uid timeout inode
      const f = line.trim().split(/\s+/);
      if (f.length < 10 || !`${f[1]} `.endsWith(want) || !`${f[2]} `.endsWith(peer)) continue;
      return f[9];
    }
  }
  return undefined;
}

/** The connection whose far end is gobgpd's port `gobgpdPort` (to our `stationPort`) is a socket of `pid`. */
export function socketOwnedBy(pid: number, stationPort: number, gobgpdPort: number): boolean {
  const inode = socketInode(gobgpdPort, stationPort);
  if (inode === undefined || inode === "0") return false;
  const target = `socket:[${inode}]`;
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === target) return true;
      } catch {
        /* closed meanwhile */
      }
    }
  } catch {
    return false;
  }
  return false;
}

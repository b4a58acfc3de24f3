// The address bfdd sends from towards a peer: the kernel's choice (`ip route get`), on the BFD's interface
// when it names one.
import { execFile } from "node:child_process";
import { promisify } from "node:util";

const run = promisify(execFile);

export async function localAddressTowards(peer: string, ifname?: string): Promise<string | undefined> {
  try {
    const { stdout } = await run("ip", ["-j", "route", "get", peer, ...(ifname !== undefined ? ["oif", ifname] : [])]);
    const [route] = JSON.parse(stdout) as { prefsrc?: string }[];
    return route?.prefsrc;
  } catch {
    return undefined;
  }
}

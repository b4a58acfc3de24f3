import { createSocket, type Socket } from "node:dgram";
import { afterEach, describe, expect, it } from "vitest";
import { loadSetSockOpt } from "./native-sockopt.js";

const SOL_SOCKET = 1;
const SO_RCVBUF = 8;
const open: Socket[] = [];

function bound(): Promise<Socket> {
  const s = createSocket("udp4");
  open.push(s);
  return new Promise((resolve) => s.bind(0, "127.0.0.1", () => resolve(s)));
}

afterEach(() => {
  for (const s of open.splice(0)) s.close();
});

describe("setsockopt without node-gyp-build", () => {
  it("sets an option on the socket's descriptor, as the kernel then reports it", async () => {
    const set = await loadSetSockOpt();
    const ours = await bound();
    const reference = await bound();
    set(ours, SOL_SOCKET, SO_RCVBUF, 65536);
    reference.setRecvBufferSize(65536);
    expect(ours.getRecvBufferSize()).toBe(reference.getRecvBufferSize());
    expect(ours.getRecvBufferSize()).not.toBe((await bound()).getRecvBufferSize());
  });

  it("refuses a socket that has no descriptor yet", async () => {
    const set = await loadSetSockOpt();
    const s = createSocket("udp4");
    expect(() => set(s, SOL_SOCKET, SO_RCVBUF, 65536)).toThrow(/no file descriptor/);
    s.close();
  });
});

// A UDP listening socket through the native helper (native/udp-batch.c): the helper's thread receives
// datagrams in batches (recvmmsg); each batch is one JS call, whose answers leave in one sendmmsg before
// the call returns. Answers that finish later (misses) are gathered and sent at the end of the event-loop
// turn. Layout of the batches: native/layout.ts.
import { constants } from "node:os";
import type { ClientInfo, Reply } from "../resolver/resolver.js";
import type { OpenedSocket, UdpBatchAddon } from "./native/addon.js";
import { BATCH, packetTruncated, packetView, PeerText, peerPort, SendBatch, sendResult } from "./native/layout.js";
import { SOCKET_BUFFER, type Deliver, type UdpTransport } from "./udp-transport.js";

const ERRNO_NAMES = new Map(Object.entries(constants.errno).map(([name, n]) => [n, name]));

export function errnoName(errno: number): string {
  return ERRNO_NAMES.get(errno) ?? `errno ${errno}`;
}

export interface NativeTransportHooks {
  /** A receive or send error from the kernel (the socket keeps serving). */
  onError?(what: "receive" | "send", errno: number): void;
  /** A datagram longer than the helper's packet size: dropped. */
  onOversized?(): void;
  onBatch?(count: number): void;
}

export class NativeTransport implements UdpTransport {
  readonly kind = "native";
  readonly port: number;
  private readonly socket: OpenedSocket;
  private readonly send = new SendBatch();
  private readonly texts = new PeerText();
  private readonly client: ClientInfo = { address: "", port: 0, protocol: "udp" };
  /** The receive slot being answered, and the packet in it (-1: none). */
  private slot = -1;
  private packet = -1;
  private flushQueued = false;
  private open = true;

  constructor(
    private readonly addon: UdpBatchAddon,
    address: string,
    port: number,
    private readonly deliver: Deliver,
    private readonly hooks: NativeTransportHooks = {},
  ) {
    this.socket = addon.open(address, port, SOCKET_BUFFER, SOCKET_BUFFER, (slot, count, errno) => this.onBatch(slot, count, errno));
    this.port = this.socket.port;
  }

  private readonly reply: Reply = (out, _outcome, to) => {
    if (!this.open) return;
    // An answer given while its query's batch is in hand goes back by reference to the query's source.
    if (to === this.client && this.packet >= 0) {
      if (!this.send.addReply(out, this.packet)) {
        this.flush();
        this.send.addReply(out, this.packet);
      }
      return;
    }
    if (!this.send.addTo(out, to.address, to.port)) {
      this.flush();
      this.send.addTo(out, to.address, to.port);
    }
    if (this.slot < 0 && !this.flushQueued) {
      this.flushQueued = true;
      setImmediate(() => {
        this.flushQueued = false;
        this.flush();
      });
    }
  };

  private onBatch(slot: number, count: number, errno: number): void {
    if (errno !== 0) {
      this.hooks.onError?.("receive", errno);
      return;
    }
    const buf = this.socket.slots[slot]!;
    const client = this.client;
    this.slot = slot;
    try {
      for (let i = 0; i < count && i < BATCH; i++) {
        if (packetTruncated(buf, i)) {
          this.hooks.onOversized?.();
          continue;
        }
        this.packet = i;
        client.address = this.texts.of(buf, i);
        client.port = peerPort(buf, i);
        try {
          this.deliver(packetView(buf, i), client, this.reply);
        } catch {
          // The resolver counts its own failures; one bad packet must not cost the rest of the batch.
        }
      }
      this.hooks.onBatch?.(count);
    } finally {
      this.packet = -1;
      // The slot is handed back to the helper when this returns: answers referring to it leave now.
      this.flush();
      this.slot = -1;
    }
  }

  private flush(): void {
    const batch = this.send;
    if (batch.count === 0 || !this.open) return;
    const { sent, errno } = sendResult(this.addon.send(this.socket.handle, batch.staging, batch.count, this.slot < 0 ? 0 : this.slot));
    if (sent < batch.count && errno !== 0) this.hooks.onError?.("send", errno);
    batch.reset();
  }

  /** Stops the helper's thread and closes the socket; answers still to come are dropped. */
  close(): void {
    if (!this.open) return;
    this.flush();
    this.open = false;
    this.addon.close(this.socket.handle);
  }
}

// UDP transport for one interface: a udp6 socket bound to the interface's link-local address with its
// scope ([fe80::x%ifname]:546), sending to ff02::1:2%ifname:547. Binding a link-local address with a
// scope id makes Linux bind the socket to that device (sk_bound_dev_if), so two instances on two
// interfaces never see each other's traffic, even when both interfaces carry the same link-local.
import { createSocket, type Socket } from "node:dgram";
import type { Logger } from "pino";
import { ALL_DHCP_RELAY_AGENTS_AND_SERVERS, CLIENT_PORT, SERVER_PORT } from "./constants.js";
import { findLinkLocal } from "./interface-info.js";

export interface Transport {
  /** Starts binding (retrying until the link-local address is usable); onReady fires each time it is bound. */
  open(): void;
  send(data: Uint8Array): Promise<boolean>;
  close(): Promise<void>;
  readonly localAddress: string | undefined;
}

export interface TransportHandlers {
  onMessage(data: Uint8Array, from: string): void;
  onReady(localAddress: string): void;
}

export type TransportFactory = (ifname: string, handlers: TransportHandlers, logger: Logger) => Transport;

/** Poll quickly at first: right after link-up the link-local address appears within milliseconds. */
const RETRY_FAST_MS = 25;
const RETRY_FAST_TRIES = 80;
const RETRY_MAX_MS = 2000;
/** Errors after which the socket is reopened: the address or the interface went away. */
const REOPEN_ERRORS = new Set(["EADDRNOTAVAIL", "ENODEV", "ENXIO", "ENETDOWN", "EINVAL"]);

export class UdpTransport implements Transport {
  private socket: Socket | undefined;
  private bound: string | undefined;
  private closed = false;
  private retryTimer: NodeJS.Timeout | undefined;
  private retries = 0;
  private warnedAt = 0;

  constructor(
    private readonly ifname: string,
    private readonly handlers: TransportHandlers,
    private readonly logger: Logger,
    private readonly clientPort = CLIENT_PORT,
    private readonly serverPort = SERVER_PORT,
  ) {}

  get localAddress(): string | undefined {
    return this.bound;
  }

  open(): void {
    if (this.closed || this.socket || this.retryTimer) return;
    const ll = findLinkLocal(this.ifname);
    if (!ll) return this.retryLater("no IPv6 link-local address yet");
    const local = `${ll}%${this.ifname}`;
    const sock = createSocket({ type: "udp6", reuseAddr: false });
    this.socket = sock;
    sock.on("message", (msg, rinfo) => this.handlers.onMessage(new Uint8Array(msg), rinfo.address));
    sock.on("error", (err) => this.onSocketError(sock, err as NodeJS.ErrnoException));
    sock.bind({ address: local, port: this.clientPort, exclusive: true }, () => {
      if (this.socket !== sock) return;
      try {
        sock.setMulticastInterface(`::%${this.ifname}`);
      } catch (err) {
        this.logger.warn({ err }, "cannot set the multicast interface");
      }
      this.bound = local;
      this.retries = 0;
      this.logger.info({ local, port: this.clientPort }, "socket bound");
      this.handlers.onReady(local);
    });
  }

  private onSocketError(sock: Socket, err: NodeJS.ErrnoException): void {
    if (this.socket !== sock) return;
    this.dropSocket();
    if (err.code === "EADDRINUSE") {
      // Another client (a second instance, dhcpcd, ...) owns port 546 on this link: say so, retry slowly.
      this.retries = Math.max(this.retries, RETRY_FAST_TRIES);
      this.logger.error({ code: err.code }, "another DHCPv6 client is bound to port 546 on this interface");
    }
    // Before bind completes (tentative address, DAD) or after the address vanished: rebind later.
    this.retryLater(`${err.code ?? "error"}: ${err.message}`);
  }

  private retryLater(reason: string): void {
    if (this.closed) return;
    const now = Date.now();
    if (this.retries < RETRY_FAST_TRIES) this.logger.debug({ reason }, "interface not usable yet");
    else if (now - this.warnedAt > 30_000) {
      this.warnedAt = now;
      this.logger.warn({ reason }, "waiting for the interface to become usable");
    }
    this.retries += 1;
    const delay = this.retries <= RETRY_FAST_TRIES ? RETRY_FAST_MS : Math.min(RETRY_MAX_MS, RETRY_FAST_MS * 2 ** (this.retries - RETRY_FAST_TRIES));
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.open();
    }, delay);
  }

  private dropSocket(): void {
    const sock = this.socket;
    this.socket = undefined;
    this.bound = undefined;
    try {
      sock?.close();
    } catch {
      /* already closed */
    }
  }

  async send(data: Uint8Array): Promise<boolean> {
    const sock = this.socket;
    if (!sock || !this.bound) {
      this.open();
      return false;
    }
    // The link-local can change under a bound socket (link re-created, address replaced): rebind to it.
    const current = findLinkLocal(this.ifname);
    if (`${current}%${this.ifname}` !== this.bound) {
      this.logger.info({ was: this.bound, now: current ?? null }, "link-local address changed; rebinding");
      this.dropSocket();
      this.open();
      return false;
    }
    return new Promise((resolve) => {
      sock.send(data, this.serverPort, `${ALL_DHCP_RELAY_AGENTS_AND_SERVERS}%${this.ifname}`, (err) => {
        if (!err) return resolve(true);
        const code = (err as NodeJS.ErrnoException).code ?? "";
        this.logger.warn({ err }, "send failed");
        if (REOPEN_ERRORS.has(code) && this.socket === sock) {
          this.dropSocket();
          this.retryLater(code);
        }
        resolve(false);
      });
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const sock = this.socket;
    this.socket = undefined;
    this.bound = undefined;
    if (sock) await new Promise<void>((resolve) => sock.close(() => resolve()));
  }
}

export const udpTransport: TransportFactory = (ifname, handlers, logger) => new UdpTransport(ifname, handlers, logger);

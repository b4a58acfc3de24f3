// A promise-shaped view of GoBGP's gRPC API on gobgpd's Unix socket: the calls routerd-bgp makes, nothing
// more. gobgpd listens only on that socket (never on a routed address).
import { credentials, Metadata, type CallOptions, type ClientReadableStream, type ServiceError } from "@grpc/grpc-js";
import type { Empty } from "@routerd/gobgp-api/gen/google/protobuf/empty";
import {
  GobgpApiClient,
  type AddDefinedSetRequest,
  type AddPathRequest,
  type AddPathResponse,
  type AddBmpRequest,
  type GetBgpResponse,
  type UpdatePeerResponse,
  type AddPeerRequest,
  type AddPolicyAssignmentRequest,
  type AddPolicyRequest,
  type DeleteDefinedSetRequest,
  type DeletePathRequest,
  type DeletePeerRequest,
  type DeletePolicyAssignmentRequest,
  type DeletePolicyRequest,
  type Global,
  type ListPathRequest,
  type ListPathResponse,
  type ResetPeerRequest,
  type Peer,
  type SetPolicyAssignmentRequest,
  type StartBgpRequest,
  type UpdatePeerRequest,
  WatchEventRequest,
} from "@routerd/gobgp-api/gen/gobgp";
import { decodeWatchEvent, type WatchEvent } from "./watch-decode.js";

type Unary<Req, Res> = (req: Req, cb: (err: ServiceError | null, res: Res) => void) => unknown;

export class GobgpClient {
  readonly raw: GobgpApiClient;

  constructor(socketPath: string) {
    this.raw = new GobgpApiClient(`unix://${socketPath}`, credentials.createInsecure(), {
      // 100k-path RIB dumps arrive as one stream; single messages stay small, but be generous.
      "grpc.max_receive_message_length": 64 * 1024 * 1024,
    });
  }

  private call<Res>(invoke: (md: Metadata, opts: CallOptions, cb: (err: ServiceError | null, res: Res) => void) => unknown, timeoutMs = 10_000): Promise<Res> {
    return new Promise((resolve, reject) => {
      invoke(new Metadata(), { deadline: new Date(Date.now() + timeoutMs) }, (err, res) => (err ? reject(err) : resolve(res)));
    });
  }

  /** Resolves once gobgpd answers (or rejects after timeoutMs). */
  waitReady(timeoutMs: number): Promise<void> {
    return new Promise((resolve, reject) => this.raw.waitForReady(new Date(Date.now() + timeoutMs), (err) => (err ? reject(err) : resolve())));
  }

  async getGlobal(): Promise<Global | undefined> {
    return (await this.call<GetBgpResponse>((m, o, cb) => this.raw.getBgp({}, m, o, cb))).global;
  }
  startBgp(req: StartBgpRequest) {
    return this.call<Empty>((md, o, cb) => this.raw.startBgp(req, md, o, cb));
  }
  addPeer(req: AddPeerRequest) {
    return this.call<Empty>((md, o, cb) => this.raw.addPeer(req, md, o, cb));
  }
  updatePeer(req: UpdatePeerRequest) {
    return this.call<UpdatePeerResponse>((md, o, cb) => this.raw.updatePeer(req, md, o, cb));
  }
  deletePeer(req: DeletePeerRequest) {
    return this.call<Empty>((md, o, cb) => this.raw.deletePeer(req, md, o, cb));
  }
  addDefinedSet(req: AddDefinedSetRequest) {
    return this.call<Empty>((md, o, cb) => this.raw.addDefinedSet(req, md, o, cb));
  }
  deleteDefinedSet(req: DeleteDefinedSetRequest) {
    return this.call<Empty>((md, o, cb) => this.raw.deleteDefinedSet(req, md, o, cb));
  }
  addPolicy(req: AddPolicyRequest) {
    return this.call<Empty>((md, o, cb) => this.raw.addPolicy(req, md, o, cb));
  }
  deletePolicy(req: DeletePolicyRequest) {
    return this.call<Empty>((md, o, cb) => this.raw.deletePolicy(req, md, o, cb));
  }
  addPolicyAssignment(req: AddPolicyAssignmentRequest) {
    return this.call<Empty>((md, o, cb) => this.raw.addPolicyAssignment(req, md, o, cb));
  }
  setPolicyAssignment(req: SetPolicyAssignmentRequest) {
    return this.call<Empty>((md, o, cb) => this.raw.setPolicyAssignment(req, md, o, cb));
  }
  deletePolicyAssignment(req: DeletePolicyAssignmentRequest) {
    return this.call<Empty>((md, o, cb) => this.raw.deletePolicyAssignment(req, md, o, cb));
  }
  resetPeer(req: ResetPeerRequest) {
    return this.call<Empty>((md, o, cb) => this.raw.resetPeer(req, md, o, cb));
  }
  /** Administratively down: the session closes and its paths are withdrawn at once (BFD down). */
  disablePeer(address: string, communication: string) {
    return this.call<Empty>((md, o, cb) => this.raw.disablePeer({ address, communication }, md, o, cb));
  }
  enablePeer(address: string) {
    return this.call<Empty>((md, o, cb) => this.raw.enablePeer({ address }, md, o, cb));
  }
  addPath(req: AddPathRequest) {
    return this.call<AddPathResponse>((md, o, cb) => this.raw.addPath(req, md, o, cb));
  }
  deletePath(req: DeletePathRequest) {
    return this.call<Empty>((md, o, cb) => this.raw.deletePath(req, md, o, cb));
  }

  /** A BMP station gobgpd connects to (TCP; routerd-bgp's is on loopback: bmp/station.ts). */
  addBmp(req: AddBmpRequest) {
    return this.call<Empty>((md, o, cb) => this.raw.addBmp(req, md, o, cb));
  }
  deleteBmp(address: string, port: number) {
    return this.call<Empty>((md, o, cb) => this.raw.deleteBmp({ address, port }, md, o, cb));
  }
  listBmp(): Promise<{ address: string; port: number }[]> {
    return collect(this.raw.listBmp({}), (r) => r.station?.conf);
  }

  listPeers(address = "", enableAdvertised = false): Promise<Peer[]> {
    return collect(this.raw.listPeer({ address, enableAdvertised }), (r) => r.peer);
  }

  async listPolicyNames(): Promise<string[]> {
    return collect(this.raw.listPolicy({ name: "" }), (r) => r.policy?.name);
  }

  async listDefinedSetNames(): Promise<{ name: string; type: number }[]> {
    const types = [0, 1, 4]; // PREFIX, NEIGHBOR, COMMUNITY: the kinds routerd-bgp creates
    const out: { name: string; type: number }[] = [];
    for (const definedType of types) {
      for (const s of await collect(this.raw.listDefinedSet({ definedType, name: "" }), (r) => r.definedSet)) out.push({ name: s.name, type: s.definedType });
    }
    return out;
  }

  listPath(req: Partial<ListPathRequest>): Promise<ListPathResponse[]> {
    return collect(this.raw.listPath(req as ListPathRequest), (r) => r);
  }

  /** WatchEvent with the wire decoder of watch-decode.ts (the generated one is too costly for full tables). */
  watch(req: WatchEventRequest): ClientReadableStream<WatchEvent> {
    return this.raw.makeServerStreamRequest("/apipb.GobgpApi/WatchEvent", (v: WatchEventRequest) => Buffer.from(WatchEventRequest.encode(v).finish()), decodeWatchEvent, req);
  }

  close(): void {
    this.raw.close();
  }
}

function collect<T, U>(stream: ClientReadableStream<T>, pick: (t: T) => U | undefined): Promise<U[]> {
  return new Promise((resolve, reject) => {
    const out: U[] = [];
    stream.on("data", (m: T) => {
      const v = pick(m);
      if (v !== undefined) out.push(v);
    });
    stream.on("error", reject);
    stream.on("end", () => resolve(out));
  });
}

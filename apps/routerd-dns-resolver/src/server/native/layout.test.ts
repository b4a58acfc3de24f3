// The batch layout shared with native/udp-batch.c, without the addon: receive records written as the
// helper's thread writes them read back as the datagrams and sources they carry; send batches carry each
// answer with its destination (a reference to the query's record, or an address) and refuse to overfill.
import { describe, expect, it } from "vitest";
import { BATCH, META, PeerText, PKT, packetLength, packetTruncated, packetView, peerPort, readPeer, readSendRecord, REF_NONE, SEND_DATA, SEND_MAX, SendBatch, SLOT_BYTES, writeReceived } from "./layout.js";

describe("receive slots", () => {
  it("carry each datagram with its source address and port", () => {
    const slot = Buffer.alloc(SLOT_BYTES);
    const sources = ["192.0.2.7", "2001:db8::53", "fe80::1%3", "10.0.0.1"];
    sources.forEach((a, i) => writeReceived(slot, i, Buffer.from(`query ${i}`), a, 40000 + i));
    const texts = new PeerText();
    sources.forEach((a, i) => {
      expect(packetView(slot, i).toString()).toBe(`query ${i}`);
      expect(texts.of(slot, i)).toBe(a);
      expect(peerPort(slot, i)).toBe(40000 + i);
      expect(packetTruncated(slot, i)).toBe(false);
    });
    // The last packet of a full batch sits at the end of the slot.
    writeReceived(slot, BATCH - 1, Buffer.alloc(PKT, 7), "198.51.100.1", 53);
    expect(packetView(slot, BATCH - 1).length).toBe(PKT);
    expect(packetView(slot, BATCH - 1).buffer).toBe(slot.buffer);
  });

  it("flag a datagram longer than a packet area and keep only its first bytes", () => {
    const slot = Buffer.alloc(SLOT_BYTES);
    writeReceived(slot, 0, Buffer.alloc(PKT + 100, 1), "192.0.2.1", 1, true);
    expect(packetTruncated(slot, 0)).toBe(true);
    expect(packetLength(slot, 0)).toBe(PKT);
  });

  it("reuse the text of an IPv4 source already seen (no string per packet)", () => {
    const slot = Buffer.alloc(SLOT_BYTES);
    writeReceived(slot, 0, Buffer.from("a"), "192.0.2.9", 1);
    writeReceived(slot, 1, Buffer.from("b"), "192.0.2.9", 2);
    const texts = new PeerText();
    expect(texts.of(slot, 1)).toBe(texts.of(slot, 0));
    expect(texts.of(slot, 0)).toBe("192.0.2.9");
  });
});

describe("send batches", () => {
  it("carry answers by reference to the query's record or to an address, packed one after another", () => {
    const b = new SendBatch();
    expect(b.addReply(Buffer.from("answer zero"), 0)).toBe(true);
    expect(b.addTo(Buffer.from("late answer"), "2001:db8::1%2", 5353)).toBe(true);
    expect(b.addTo(Buffer.from("v4"), "192.0.2.44", 1024)).toBe(true);
    expect(b.count).toBe(3);
    const first = readSendRecord(b.staging, 0);
    expect(first).toEqual({ payload: Buffer.from("answer zero"), ref: 0 });
    expect(first.payload.byteOffset - b.staging.byteOffset).toBe(SEND_DATA);
    const second = readSendRecord(b.staging, 1);
    expect(second.ref).toBe(REF_NONE);
    expect(second.payload.toString()).toBe("late answer");
    expect(second.payload.byteOffset).toBe(first.payload.byteOffset + first.payload.length);
    expect(readPeer(b.staging, 1)).toEqual({ address: "2001:db8::1%2", port: 5353, family: 6 });
    expect(readPeer(b.staging, 2)).toEqual({ address: "192.0.2.44", port: 1024, family: 4 });
    b.reset();
    expect(b.count).toBe(0);
    b.addReply(Buffer.from("again"), 5);
    expect(readSendRecord(b.staging, 0)).toEqual({ payload: Buffer.from("again"), ref: 5 });
  });

  it("refuse an answer past SEND_MAX records or past the staging area", () => {
    const b = new SendBatch();
    for (let i = 0; i < SEND_MAX; i++) expect(b.addReply(Buffer.from([i]), i % BATCH)).toBe(true);
    expect(b.addReply(Buffer.from([0]), 0)).toBe(false);
    expect(b.count).toBe(SEND_MAX);
    // Answers of 4,000 bytes (TCP-sized; UDP ones stop at 1,232) fill the payload area first.
    const big = new SendBatch();
    const answer = Buffer.alloc(4000);
    let n = 0;
    while (big.addTo(answer, "192.0.2.1", 53)) n++;
    expect(n).toBe(Math.floor((big.staging.length - SEND_DATA) / 4000));
    expect(n).toBeLessThan(SEND_MAX);
    expect(META * SEND_MAX).toBe(SEND_DATA);
  });
});

// Runs inside a test namespace (fib-netlink.test.ts): the built routerd-bgp FIB code against the real kernel.
// argv[2] is a JSON job; prints one JSON line with the outcome.
//   {"writer": {"target": T, "chunks": [[["replace", prefix, hops] | ["delete", prefix, metric], ...], ...]}}
//     → {"kind", "results": [[[index, error], ...] per chunk]} — the writers' own interface, chunks in flight together
//   {"programmer": {"target": T, "routes": [[prefix, hops], ...]}}
//     → {"kind", "stats"} — FibProgrammer with the default writer (netlink when built)
import pino from "pino";

const dist = new URL("../../apps/routerd-bgp/dist/fib/", import.meta.url);
const { DEFAULT_WRITERS, openFibWriter } = await import(new URL("writer.js", dist).href);
const { FibProgrammer } = await import(new URL("programmer.js", dist).href);

const job = JSON.parse(process.argv[2]);
const logger = pino({ level: "silent" });

if (job.writer !== undefined) {
  const writer = openFibWriter(DEFAULT_WRITERS, logger);
  const pending = job.writer.chunks.map((writes) => {
    const chunk = writer.chunk(job.writer.target);
    for (const [op, prefix, arg] of writes) op === "delete" ? chunk.delete(prefix, arg) : chunk.replace(prefix, arg);
    return chunk.submit();
  });
  const results = await Promise.all(pending);
  writer.close();
  console.log(JSON.stringify({ kind: writer.kind, results: results.map((r) => [...r.failed]) }));
} else {
  const fib = new FibProgrammer({ target: job.programmer.target, logger });
  await fib.loadKernel();
  for (const [prefix, hops] of job.programmer.routes) fib.update(prefix, hops);
  await fib.idle();
  fib.close();
  console.log(JSON.stringify({ kind: fib.writerKind, stats: fib.stats }));
}

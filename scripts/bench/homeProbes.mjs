/**
 * `node --expose-gc scripts/bench/homeProbes.mjs [count]`: what read-only calls of a handle tool
 * leave in memory where homes live in the process (Node, Deno without `--kv`, stdio). Bundles
 * `homeProbesEntry.ts` (Node 20 runs no TypeScript), runs `count` (default 100,000) anonymous
 * `notebook` `list` calls — half with a random handle, half with none — and prints the heap after
 * a full collection before and after, and the homes held.
 *
 * @example node --expose-gc scripts/bench/homeProbes.mjs
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";
import { fromSource } from "../bundleWorker.mjs";

const HERE = fileURLToPath(new URL(".", import.meta.url));
const COUNT = Number(process.argv[2] ?? 100_000);
const MIB = 1024 * 1024;

if (typeof globalThis.gc !== "function") {
  console.error("Run with node --expose-gc, so that the heap is measured after a full collection.");
  process.exit(1);
}

const dir = mkdtempSync(join(tmpdir(), "home-probes-"));
try {
  const outfile = join(dir, "entry.mjs");
  await build({ entryPoints: [resolve(HERE, "homeProbesEntry.ts")], bundle: true, format: "esm", platform: "node", outfile, logLevel: "error", plugins: [fromSource] });
  const { probe, held } = await import(pathToFileURL(outfile).href);
  // Warm up, so that what the code itself loads is in the baseline.
  for (let i = 0; i < 1_000; i++) await probe(i);
  const before = heapAfterGc();
  const started = performance.now();
  for (let i = 0; i < COUNT; i++) await probe(i);
  const seconds = (performance.now() - started) / 1000;
  const after = heapAfterGc();
  console.log(`${COUNT} read-only notebook calls in ${seconds.toFixed(1)} s`);
  console.log(`heap after a full GC: before ${(before / MIB).toFixed(2)} MiB, after ${(after / MIB).toFixed(2)} MiB, change ${((after - before) / MIB).toFixed(2)} MiB`);
  console.log(`homes held in memory: ${held()}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}

function heapAfterGc() {
  globalThis.gc();
  globalThis.gc();
  return process.memoryUsage().heapUsed;
}

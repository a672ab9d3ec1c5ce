/**
 * `node scripts/bundleAreas.mjs [entry]`: what a Worker's bundle is made of, by area of the
 * source tree, from esbuild's metafile (minified bytes each area's modules leave in the output;
 * gzip is only known for the whole). Default entry: the one-tool Worker the size budget holds
 * (`test/bundle/rawSchemaWorker.ts`). Bundled as `bundleWorker` bundles, minified; `npm run size`
 * gives the deployed figures, which differ from these by wrangler's own few bytes.
 * Prints figures, asserts nothing.
 */
import { build } from "esbuild";
import { gzipSync } from "node:zlib";
import { WORKER_BUILD } from "./bundleWorker.mjs";

const entry = process.argv[2] ?? "test/bundle/rawSchemaWorker.ts";

/** Areas in the order they are matched: a module counts in the first whose pattern its path meets. */
const AREAS = [
  ["the JSON Schema validator (@cfworker/json-schema)", /@cfworker\//],
  ["zod", /node_modules\/zod\//],
  ["2025 sessions: session, outbound queue and event store, transports, session host and object, relay, storage, broadcast", /^shared\/(session|outbound|transport|host|storage|broadcast)\/|^durable\/|^worker\/relayToClient/],
  ["routes: router, /mcp, /sse, /message, the page at GET /, /health", /^shared\/routes\//],
  ["2026-07-28 without sessions: admission, listen, requestState", /^shared\/stateless\//],
  ["execution core: runExchange, input rounds, deadline, slots", /^shared\/exchange\//],
  ["methods and schemas: tools, validation, argument limits, scopes", /^shared\/(methods|schema)\//],
  ["server compilation, definitions, configuration", /^shared\/(server|definition|config)\//],
  ["HTTP: guards, CORS, origin, body, answers", /^shared\/http\//],
  ["capabilities", /^capabilities\//],
  ["homes and fair shares", /^shared\/(home|shares)\//],
  ["the rest: JSON-RPC, errors, protocol, logging, bytes, auth, the entry", /./],
];

const result = await build({ ...WORKER_BUILD, entryPoints: [entry], minify: true, metafile: true, write: false });
const bytes = AREAS.map(() => 0);
for (const [path, input] of Object.entries(Object.values(result.metafile.outputs)[0].inputs)) bytes[AREAS.findIndex(([, pattern]) => pattern.test(path))] += input.bytesInOutput;
const output = result.outputFiles[0].contents;
console.log(`${entry}: ${(output.length / 1024).toFixed(1)} KiB minified, ${(gzipSync(output).length / 1024).toFixed(1)} KiB gzip`);
for (const [i, [area]] of AREAS.entries()) if (bytes[i] > 0) console.log(`${(bytes[i] / 1024).toFixed(1).padStart(7)} KiB  ${area}`);

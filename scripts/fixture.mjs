/**
 * `npm run fixture [-- --port N]`: serves the conformance fixture (test/conformance/) on
 * workerd at http://127.0.0.1:N/mcp (and /sse), until interrupted. Default port 3001.
 */
import { parsePort } from "./parsePort.mjs";
import { startServer } from "./startServer.mjs";

const { port } = parsePort(process.argv.slice(2), 3001);
const server = await startServer({ entry: "test/conformance/fixtureWorker.ts", port, vars: { LOG_LEVEL: process.env.LOG_LEVEL ?? "warning" } });
console.log(`conformance fixture: ${server.url}/mcp (Streamable HTTP), ${server.url}/sse (HTTP+SSE)`);
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, () => server.dispose().then(() => process.exit(0)));

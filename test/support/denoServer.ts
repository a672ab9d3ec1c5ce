/**
 * Serves the server definition a test names (`--server MODULE`, default export) on Deno, as a
 * user's own Deno entry would: over HTTP (`serveDeno`; it reads `--port` and `--kv` itself), or
 * over stdin/stdout with `--stdio` (`serveDenoStdio`). The Deno twin of a test's Worker entry.
 */
import { serveDeno, serveDenoStdio } from "durable-mcp/deno";

const at = Deno.args.indexOf("--server");
const module = at >= 0 ? Deno.args[at + 1] : undefined;
if (!module) throw new Error("denoServer.ts needs --server MODULE, a file whose default export is a server definition");
const definition = (await import(new URL(module, `file://${Deno.cwd()}/`).href)).default;
if (Deno.args.includes("--stdio")) await serveDenoStdio(definition);
else await serveDeno(definition);

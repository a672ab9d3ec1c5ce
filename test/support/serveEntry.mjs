/**
 * Serves a Worker entry on workerd in a process of its own, so that a test reads all the runtime
 * prints (`startServerProcess`): through miniflare (`startServer`, which relays workerd's output
 * to this process's console) or on bare workerd (`startWorkerd`, whose workerd writes to this
 * process's stdout and stderr). Prints `serving on URL` once started; SIGTERM or SIGINT
 * disposes of the server, then exits.
 *
 * Not here: Deno (a test runs `test/support/denoServer.ts` itself, which prints its own line).
 *
 * @example
 * node test/support/serveEntry.mjs workerd test/runtime/testWorker.ts KEEPALIVE_INTERVAL_MS=300
 */
import { startServer } from "../../scripts/startServer.mjs";
import { startWorkerd } from "../../scripts/startWorkerd.mjs";

const [how, entry, ...assignments] = process.argv.slice(2);
const start = { miniflare: startServer, workerd: startWorkerd }[how];
if (!start || !entry) {
  console.error("usage: node test/support/serveEntry.mjs miniflare|workerd ENTRY [NAME=VALUE ...]");
  process.exit(2);
}
const vars = Object.fromEntries(assignments.map((a) => [a.slice(0, a.indexOf("=")), a.slice(a.indexOf("=") + 1)]));
// `startServer` would start Deno under RUNTIME=deno: this runner is for workerd only.
delete process.env.RUNTIME;
const server = await start({ entry, vars });
console.log(`serving on ${server.url}`);
for (const signal of ["SIGINT", "SIGTERM"]) {
  // Importing wrangler (for its config reader) installs handlers that exit at once, before
  // `dispose` could stop workerd in order and remove the bundle: this runner shuts down itself.
  process.removeAllListeners(signal);
  process.once(signal, () => server.dispose().then(() => process.exit(0)));
}

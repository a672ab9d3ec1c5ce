/**
 * A server definition over this Deno process's stdin/stdout: the entry a desktop client (Claude
 * Desktop, Cursor, …) starts as a subprocess. Wires the process to `serveStdio` and decides the
 * exit code: 0 when stdin closes (the client's way to stop a stdio server), 1 if serving fails.
 * A definition or variable that cannot be served stops it before it reads a line: one line on
 * stderr that says why, exit 1 (`refuseToStart`).
 *
 * stdout carries MCP messages and nothing else (transports spec, "stdio"): a stray console.log,
 * ours or a tool's, would corrupt the stream, so every console level goes to stderr.
 *
 * @example
 * // stdio.ts — deno run --allow-env --allow-net stdio.ts
 * import { serveDenoStdio } from "durable-mcp/deno";
 * import server from "./server.ts";
 * await serveDenoStdio(server);
 */
import { readConfig } from "../shared/config/readConfig.ts";
import { configurationProblem } from "../shared/config/configurationProblem.ts";
import { Logger, stderrSink } from "../shared/log/Logger.ts";
import { compiledOf, type ServerDefinition } from "../shared/server/ServerDefinition.ts";
import { serveStdio } from "../shared/stdio/serveStdio.ts";
import { logUnhandledRejections } from "./logUnhandledRejections.ts";
import { denoTelemetry } from "../capabilities/telemetry/deno/denoTelemetry.ts";
import { refuseToStart } from "./refuseToStart.ts";
import { userHomeNeedsSignIn } from "../shared/home/deploymentProblems.ts";

export async function serveDenoStdio(server: ServerDefinition): Promise<never> {
  const definition = compiledOf(server, "serveDenoStdio");
  console.log = console.info = console.debug = console.error;
  if (definition.problem) refuseToStart("definition.invalid", definition.problem);
  // Nobody signs in over stdio: the sentence serveMessages would throw, said before reading.
  if (definition.homes.user) refuseToStart("config.homes", userHomeNeedsSignIn("this message stream"));
  const env = Deno.env.toObject();
  let logLevel: ReturnType<typeof readConfig>["logLevel"];
  try {
    logLevel = readConfig(env).logLevel;
  } catch (error) {
    refuseToStart("config.invalid", configurationProblem(error));
  }
  try {
    // The logger serveStdio would make for itself (stderr, `LOG_LEVEL`), built here so unhandled rejections share it.
    const logger = new Logger(logLevel, {}, stderrSink);
    logUnhandledRejections(logger);
    await serveStdio({ server: definition, input: Deno.stdin.readable, output: Deno.stdout.writable, env, logger, telemetry: denoTelemetry(env, definition.handleTemplateOf) });
  } catch (error) {
    console.error(JSON.stringify({ level: "error", event: "stdio.failed", message: error instanceof Error ? error.message : String(error), stack: (error as Error)?.stack }));
    Deno.exit(1);
  }
  // The client is gone: a handler's stray timer or socket must not keep the process alive.
  Deno.exit(0);
}

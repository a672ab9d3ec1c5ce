/**
 * What a process that serves HTTP itself (Deno, Node) takes and checks before it binds its port
 * (`serveSettings`): the definition and its homes, the port as given, the host names it answers
 * on loopback, the variables, and whether it may check tokens as configured; and the handle it
 * returns (`RunningServer`). Not for Workers, whose names and ports are the platform's.
 */
import { configurationProblem } from "../config/configurationProblem.ts";
import { type Config, readConfig } from "../config/readConfig.ts";
import { homeProblem } from "../home/deploymentProblems.ts";
import type { RouterOptions } from "./createRouter.ts";
import type { CompiledServer } from "../server/CompiledServer.ts";
import { ownerOf } from "../auth/Caller.ts";
import { Logger, serverText, stderrSink } from "../log/Logger.ts";

/** What `serveDeno` and `serveNode` take besides the router's options. */
export interface ServeOptions extends RouterOptions<Record<string, string>> {
  /** 0 picks a free port. Default: `--port`, `PORT`, else 8787. */
  port?: number;
  /** Default: `--hostname`, else 127.0.0.1 (loopback only: anything else exposes the server). */
  hostname?: string;
  /** Variables for limits, `LOG_LEVEL` and handlers' `ctx.env`. Default: the process environment. */
  env?: Record<string, string>;
}

/** A server bound to its port in this process. */
export interface RunningServer {
  url: string;
  shutdown(): Promise<void>;
  /**
   * Deletes everything a user has here (a data-protection request): their home (`home: "user"`
   * definitions' storage), and their live sessions and tasks. Resolves with how many of each.
   */
  deleteUserData(who: { issuer: string; subject: string }): Promise<{ sessions: number; tasks: number }>;
}

/** Where to bind, and the configuration read. */
export interface ServeSettings {
  hostname: string;
  port: number;
  config: Config;
}

/**
 * Why a process does not start: the event its one line on stderr is logged under, and the problem
 * (`start.failed`: the address it was to bind, or a store it was to open, refused it, `startFailure.ts`).
 */
export interface StartRefusal {
  event: "definition.invalid" | "config.homes" | "config.invalid" | "start.failed";
  problem: unknown;
}

/**
 * The one line a process that refuses to start writes to stderr, `{"level":"error","event":…,
 * "message":…}`, whatever `LOG_LEVEL` says (that variable may be the malformed one); the runtime
 * then exits 1 (Deno's `refuseToStart`, Node's `serveNode`).
 */
export function reportRefusal({ event, problem }: StartRefusal): void {
  new Logger("error", {}, stderrSink).error(event, { message: serverText(problem instanceof Error ? problem.message : String(problem)) });
}

/**
 * Where to bind and how to serve, or why not to start: the definition cannot be served, nor its homes
 * here, nor a variable as set, nor tokens checked on the names it would answer. On loopback the
 * answered names default to `localhost,127.0.0.1,[::1]` (DNS rebinding), as `npm start` does.
 * `env` is the process environment, changed in place for that default; `flag` reads the command line.
 */
export function serveSettings(definition: CompiledServer, options: ServeOptions, env: Record<string, string>, flag: (name: string) => string | undefined): ServeSettings | StartRefusal {
  if (definition.problem) return { event: "definition.invalid", problem: definition.problem };
  // A deployment that cannot serve the homes its definitions declare does not start either.
  const homes = homeProblem(definition, options.authorization !== undefined, true);
  if (homes) return { event: "config.homes", problem: homes };
  const hostname = options.hostname ?? flag("hostname") ?? "127.0.0.1";
  if (LOOPBACK_ALLOWED_HOSTS.has(hostname)) env.ALLOWED_HOSTS ??= "localhost,127.0.0.1,[::1]";
  let port: number;
  let config: Config;
  try {
    port = options.port ?? portFrom(flag("port") ?? env.PORT);
    config = readConfig(env);
  } catch (error) {
    return { event: "config.invalid", problem: configurationProblem(error) };
  }
  // Tokens' audience is never taken from a Host header a client writes: without `resource`, only loopback names may be answered.
  const unnamed = options.authorization?.resourceServer(env, {}).bindProblem(hostname, config.allowedHosts);
  return unnamed ? { event: "config.invalid", problem: unnamed } : { hostname, port, config };
}

/** The port when none is given. */
const DEFAULT_PORT = 8787;

/** Host names that are this machine: serving on one, a process answers only `localhost,127.0.0.1,[::1]` unless `ALLOWED_HOSTS` says otherwise. */
const LOOPBACK_ALLOWED_HOSTS: ReadonlySet<string> = new Set(["127.0.0.1", "localhost", "::1", "[::1]"]);

/** The port a flag or variable names; DEFAULT_PORT when neither does. @throws RangeError for anything but 0–65535 */
function portFrom(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_PORT;
  const port = Number(raw);
  if (!/^\d+$/.test(raw) || port > 65_535) throw new RangeError(`--port must be a whole number from 0 to 65535, got ${JSON.stringify(raw)}`);
  return port;
}

/** How long a shutdown waits for open connections to finish before it goes on without them. */
const SHUTDOWN_GRACE_MS = 5_000;

/** What a process hosts for its requests, each of which a shutdown closes and a user's erasure reaches. */
export interface ProcessHosts {
  sessions: { endOwnedBy(owner: string): Promise<number>; close(): void };
  /** Undefined where no tool runs as a task. */
  tasks?: { eraseOwnedBy(owner: string): Promise<number>; close(): void };
  homes?: { erase(owner: string): Promise<unknown>; close(): void };
}

/**
 * The handle of a server bound at `url`: its shutdown closes the hosts, then closes its port
 * — gracefully, but not for ever: a client holding a stream open (HTTP+SSE, a listen) would hold
 * it until it leaves, so past SHUTDOWN_GRACE_MS `afterwards` runs with the streams still open.
 */
export function runningServer(url: string, hosts: ProcessHosts, closePort: () => Promise<void>, afterwards: () => void | Promise<void> = () => {}): RunningServer {
  const { sessions, tasks, homes } = hosts;
  return {
    url,
    async deleteUserData(who) {
      const owner = await ownerOf(who);
      await homes?.erase(owner);
      return { sessions: await sessions.endOwnedBy(owner), tasks: (await tasks?.eraseOwnedBy(owner)) ?? 0 };
    },
    async shutdown() {
      sessions.close();
      tasks?.close();
      homes?.close();
      let grace: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([closePort(), new Promise<void>((resolve) => (grace = setTimeout(resolve, SHUTDOWN_GRACE_MS)))]);
      clearTimeout(grace);
      await afterwards();
    },
  };
}

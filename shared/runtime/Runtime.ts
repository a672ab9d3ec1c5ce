/**
 * What serves one server definition in one environment, on every runtime: built once per
 * environment (per isolate and `env` on Workers, once per process or connection elsewhere) and
 * handed to whatever hosts requests there — the routes, sessions, tasks and homes take it, or the
 * members of it they use, instead of option bags of their own. `localRuntime` builds it in a
 * process; the Workers entry builds it from the bindings.
 *
 * The edge's facts (how to read a client's address, the bound port, who writes bodies) are the
 * runtime's too: they differ per runtime and nowhere else.
 */
import type { Broadcaster } from "../broadcast/Broadcaster.ts";
import type { Config } from "../config/readConfig.ts";
import type { ServerEnv } from "../definition/RequestContext.ts";
import type { Homes } from "../home/Homes.ts";
import type { Logger } from "../log/Logger.ts";
import type { CompiledServer } from "../server/CompiledServer.ts";
import type { Shares } from "../shares/Shares.ts";
import type { Tasks } from "../tasks/Tasks.ts";
import type { Telemetry } from "../telemetry/Telemetry.ts";

export interface Runtime {
  readonly server: CompiledServer;
  readonly config: Config;
  readonly logger: Logger;
  /** The variables handlers see as `ctx.env`. */
  readonly env: ServerEnv;
  /** Where change notifications fan out (`ctx.listChanged`, `ctx.resourceUpdated`). */
  readonly broadcast: Broadcaster;
  /** Where definitions with a home of their own run (`home: "user"` or a handle); undefined where none are hosted. */
  readonly homes?: Homes;
  /** Where sessions, tasks and handles are counted, per client and in total; undefined where they are not. */
  readonly shares?: Shares;
  /** Where request spans go; undefined where tracing is off. */
  readonly telemetry?: Telemetry;
  /** Where tools declared with `task` run; undefined where none are hosted. */
  readonly tasks?: Tasks;
  /** The client's network address, where the runtime knows it (rate limits and fair shares per address). */
  clientAddress?(request: Request, context: unknown): string | undefined;
  /** The port this server serves on, where the runtime knows it: a resource taken from a loopback request must name it. */
  port?(): number | undefined;
  /** The runtime writes answers made from plain data itself (`plainAnswer`): the routes make their `Response`s without a body (Node). */
  readonly bodylessAnswers?: boolean;
}

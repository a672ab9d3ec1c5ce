/**
 * The Worker `npm run bench:cost` loads into bare workerd: the example server exactly as
 * deployed, with its session and task objects metered the way Cloudflare bills one. Per object it counts
 *
 * - requests: RPC calls, fetches (a relayed stream's upgrade), alarms, and incoming WebSocket
 *   messages (billed 20 to a request; counted here one by one, converted by the bench);
 * - storage rows read and written (the SQLite-backed key-value API: a row per key read, put or
 *   deleted; a `list` reads the rows it returns; setting or deleting the alarm writes one);
 * - alarms: for a session, alarms set (each comes due once, waking the object: a request, unless
 *   a later one replaced it; an alarm whose constructor ends the session is cancelled before its
 *   handler runs, so the bench counts alarms set rather than handlers run); for a task, alarm
 *   handlers run (a task replaces its alarm within a run — the lease — so most it sets never
 *   come due, and none is cancelled by a constructor); whether the object was wiped, and
 *   instances constructed (a second construction after idling means the object
 *   had been evicted: hibernated, in workerd's terms, which evicts after 10 s with nothing pending).
 *
 * `GET /__meter` returns the counters of every object this isolate has seen (workerd runs the
 * Worker and its objects in one isolate, so one registry sees both); `GET /__meter/keys` asks
 * each known object for the keys it stores (waking it: those calls are not counted). Nothing
 * here is safe to deploy; it exists to be measured.
 */
import { createWorker } from "../../worker/createWorker.ts";
import { taskObject } from "../../worker/taskObject.ts";
import { homeObject } from "../../worker/homeObject.ts";
import server from "../../example/server.ts";

interface Meter {
  /** Which class the object is: its keys are asked of that binding. */
  kind: "session" | "task";
  requests: number;
  socketMessages: number;
  rowsRead: number;
  rowsWritten: number;
  alarms: number;
  /** Whether its storage was wiped (the session ended). */
  wiped: boolean;
  constructed: number;
}

const meters = new Map<string, Meter>();

function meterOf(id: string, kind: Meter["kind"]): Meter {
  let meter = meters.get(id);
  if (!meter) meters.set(id, (meter = { kind, requests: 0, socketMessages: 0, rowsRead: 0, rowsWritten: 0, alarms: 0, wiped: false, constructed: 0 }));
  meter.constructed++;
  return meter;
}

/** The bench's look at what an object stores, not metered (see `storedKeys` below). */
interface KeysOf {
  storedKeys(): Promise<string[]>;
}

/** Reads storage directly, before the object loads anything: a load past a deadline would act on it. */
async function storedKeys(state: DurableObjectState): Promise<string[]> {
  return [...(await state.storage.list()).keys()];
}

/**
 * Counts `storage`'s rows as billed, in place: its methods are replaced by counting ones (the
 * object refuses a Proxy in its place, so the same storage object is metered).
 */
function meterStorage(storage: DurableObjectStorage, meter: Meter, { alarmsSet }: { alarmsSet: boolean }): void {
  const real = {
    get: storage.get.bind(storage),
    put: storage.put.bind(storage),
    delete: storage.delete.bind(storage),
    list: storage.list.bind(storage),
    deleteAll: storage.deleteAll.bind(storage),
    setAlarm: storage.setAlarm.bind(storage),
    deleteAlarm: storage.deleteAlarm.bind(storage),
  };
  Object.assign(storage, {
    get: async (key: string | string[]) => {
      const value = await real.get(key as string);
      meter.rowsRead += Array.isArray(key) ? key.length : 1;
      return value;
    },
    put: async (key: string | Record<string, unknown>, value?: unknown) => {
      meter.rowsWritten += typeof key === "string" ? 1 : Object.keys(key).length;
      return typeof key === "string" ? real.put(key, value) : real.put(key);
    },
    delete: async (key: string | string[]) => {
      meter.rowsWritten += Array.isArray(key) ? key.length : 1;
      return real.delete(key as string);
    },
    list: async (options?: DurableObjectListOptions) => {
      const found = await real.list(options);
      meter.rowsRead += found.size;
      return found;
    },
    deleteAll: async () => {
      meter.wiped = true;
      meter.rowsWritten += (await real.list()).size;
      return real.deleteAll();
    },
    setAlarm: async (at: number | Date) => {
      meter.rowsWritten++;
      if (alarmsSet) meter.alarms++;
      return real.setAlarm(at);
    },
    deleteAlarm: async () => {
      meter.rowsWritten++;
      return real.deleteAlarm();
    },
  });
}

const { fetch, McpSession: Base, McpWatch } = createWorker(server, {
  routes: [
    { method: "GET", path: "/__meter", description: "bench: per-object counters", handle: () => Response.json(Object.fromEntries(meters)) },
    {
      method: "GET",
      path: "/__meter/keys",
      description: "bench: the keys each known object stores",
      handle: async (_request, env) => {
        const keys: Record<string, string[]> = {};
        for (const [id, { kind }] of meters) {
          const namespace = (kind === "task" ? env.MCP_TASK! : env.MCP_SESSION) as unknown as DurableObjectNamespace;
          keys[id] = await (namespace.get(namespace.idFromString(id)) as unknown as KeysOf).storedKeys();
        }
        return Response.json(keys);
      },
    },
  ],
});

/** The session object, metered. */
class McpSession extends Base {
  readonly #meter: Meter;
  readonly #state: DurableObjectState;

  constructor(ctx: DurableObjectState, env: any) {
    const meter = meterOf(ctx.id.toString(), "session");
    meterStorage(ctx.storage, meter, { alarmsSet: true });
    super(ctx, env);
    this.#meter = meter;
    this.#state = ctx;
  }

  override apply(operation: Parameters<InstanceType<typeof Base>["apply"]>[0]) {
    this.#meter.requests++;
    return super.apply(operation);
  }

  override fetch(request: Request) {
    this.#meter.requests++;
    return super.fetch(request);
  }

  override alarm() {
    this.#meter.requests++;
    return super.alarm();
  }

  override webSocketMessage(socket: WebSocket, message: string | ArrayBuffer) {
    this.#meter.socketMessages++;
    return super.webSocketMessage(socket, message);
  }

  /** Not metered: the bench's look at what is left. */
  storedKeys(): Promise<string[]> {
    return storedKeys(this.#state);
  }
}

const TaskBase = taskObject(server);
/** The home object: not metered yet (the example's definitions keep no user state). */
const McpHome = homeObject(server);

/** The task object, metered: every RPC method, the alarm that runs the task, and its storage. */
class McpTask extends TaskBase {
  readonly #meter: Meter;
  readonly #state: DurableObjectState;

  constructor(ctx: DurableObjectState, env: any) {
    const meter = meterOf(ctx.id.toString(), "task");
    meterStorage(ctx.storage, meter, { alarmsSet: false });
    super(ctx, env);
    this.#meter = meter;
    this.#state = ctx;
  }

  override create(...args: Parameters<InstanceType<typeof TaskBase>["create"]>) {
    this.#meter.requests++;
    return super.create(...args);
  }

  override get(...args: Parameters<InstanceType<typeof TaskBase>["get"]>) {
    this.#meter.requests++;
    return super.get(...args);
  }

  override update(...args: Parameters<InstanceType<typeof TaskBase>["update"]>) {
    this.#meter.requests++;
    return super.update(...args);
  }

  override cancel(...args: Parameters<InstanceType<typeof TaskBase>["cancel"]>) {
    this.#meter.requests++;
    return super.cancel(...args);
  }

  /** Counted as an alarm, which the bench bills as a request. */
  override alarm() {
    this.#meter.alarms++;
    return super.alarm();
  }

  override fetch(request: Request) {
    this.#meter.requests++;
    return super.fetch(request);
  }

  /** Not metered: the bench's look at what is left. */
  storedKeys(): Promise<string[]> {
    return storedKeys(this.#state);
  }
}

export { McpHome, McpSession, McpTask, McpWatch };
export default { fetch };

/**
 * The meter `npm run bench:cost` reads: Durable Objects counted the way Cloudflare bills one. Per
 * object it counts
 *
 * - requests: RPC calls, fetches (a relayed stream's upgrade), and incoming WebSocket messages
 *   (billed 20 to a request; counted here one by one, converted by the bench);
 * - storage rows read and written (the SQLite-backed key-value API: a row per key read, put or
 *   deleted; a `list` reads the rows it returns; setting or deleting the alarm writes one; a
 *   transaction's reads and writes as the same);
 * - alarms: for a session, alarms set (each comes due once, waking the object: a request, unless
 *   a later one replaced it; an alarm whose constructor ends the session is cancelled before its
 *   handler runs, so the bench counts alarms set rather than handlers run); for tasks and homes,
 *   alarm handlers run (a task replaces its alarm within a run — the lease — so most it sets never
 *   come due); whether the object was wiped, and instances constructed (a second construction
 *   after idling means the object had been evicted: hibernated, in workerd's terms, which evicts
 *   after 10 s with nothing pending).
 *
 * `meterRoutes` serves `GET /__meter` (the counters of every object this isolate has seen:
 * workerd runs the Worker and its objects in one isolate, so one registry sees both) and
 * `GET /__meter/keys` (the keys each known object stores, asked of the object: not counted).
 * Nothing here is safe to deploy; it exists to be measured.
 */


export type Kind = "session" | "task" | "home";

export interface Meter {
  /** Which class the object is: its keys are asked of that binding. */
  kind: Kind;
  requests: number;
  socketMessages: number;
  rowsRead: number;
  rowsWritten: number;
  alarms: number;
  /** Whether its storage was wiped (the session, task or home ended). */
  wiped: boolean;
  constructed: number;
}

const meters = new Map<string, Meter>();

function meterOf(id: string, kind: Kind): Meter {
  let meter = meters.get(id);
  if (!meter) meters.set(id, (meter = { kind, requests: 0, socketMessages: 0, rowsRead: 0, rowsWritten: 0, alarms: 0, wiped: false, constructed: 0 }));
  meter.constructed++;
  return meter;
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
    transaction: storage.transaction.bind(storage),
  };
  /** The key-value methods of `target` (the storage, or a transaction), counting their rows. */
  const counted = (target: Pick<DurableObjectStorage, "get" | "put" | "delete" | "list">) => ({
    get: async (key: string | string[]) => {
      const value = await target.get(key as string);
      meter.rowsRead += Array.isArray(key) ? key.length : 1;
      return value;
    },
    put: async (key: string | Record<string, unknown>, value?: unknown) => {
      meter.rowsWritten += typeof key === "string" ? 1 : Object.keys(key).length;
      return typeof key === "string" ? target.put(key, value) : target.put(key);
    },
    delete: async (key: string | string[]) => {
      meter.rowsWritten += Array.isArray(key) ? key.length : 1;
      return target.delete(key as string);
    },
    list: async (options?: DurableObjectListOptions) => {
      const found = await target.list(options);
      meter.rowsRead += found.size;
      return found;
    },
  });
  Object.assign(storage, {
    ...counted(real),
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
    // A transaction's reads and writes are rows as any others.
    transaction: (closure: (txn: DurableObjectTransaction) => Promise<unknown>) =>
      real.transaction((txn) =>
        closure({
          ...txn,
          ...counted({ get: txn.get.bind(txn), put: txn.put.bind(txn), delete: txn.delete.bind(txn), list: txn.list.bind(txn) } as never),
        } as DurableObjectTransaction),
      ),
  });
}

type ObjectClass = new (ctx: DurableObjectState, env: any) => object;

/** Each metered instance's meter. */
const meterOfInstance = new WeakMap<object, Meter>();

/**
 * `Base`, metered: each of `rpc` (and `fetch`, and incoming socket messages) counted as a request,
 * its storage's rows, and its alarm (set, for a session; run, for a task or a home). The counting
 * methods are the subclass's own, on its prototype: RPC calls only those.
 */
export function metered<C extends ObjectClass>(Base: C, kind: Kind, rpc: readonly string[]): C {
  const Metered = class extends (Base as ObjectClass) {
    readonly #state: DurableObjectState;

    constructor(ctx: DurableObjectState, env: any) {
      const meter = meterOf(ctx.id.toString(), kind);
      meterStorage(ctx.storage, meter, { alarmsSet: kind === "session" });
      super(ctx, env);
      this.#state = ctx;
      meterOfInstance.set(this, meter);
    }

    /** Not metered: the bench's look at what is left, read before the object loads anything. */
    async storedKeys(): Promise<string[]> {
      return [...(await this.#state.storage.list()).keys()];
    }
  };
  const count = (name: string, tally: (meter: Meter) => void) => {
    const original = (Base.prototype as Record<string, unknown>)[name];
    if (typeof original !== "function") return;
    Object.defineProperty(Metered.prototype, name, {
      configurable: true,
      writable: true,
      value(this: object, ...args: unknown[]) {
        tally(meterOfInstance.get(this)!);
        return original.apply(this, args);
      },
    });
  };
  for (const name of [...rpc, "fetch"]) count(name, (meter) => meter.requests++);
  // A session's alarms are counted as set (see the module header); the others' as run.
  count("alarm", (meter) => (kind === "session" ? meter.requests++ : meter.alarms++));
  count("webSocketMessage", (meter) => meter.socketMessages++);
  return Metered as unknown as C;
}

/** The Worker's object classes for `server`, metered, each with the RPC methods its class answers. */
export function meteredObjects({ McpSession, McpTask, McpHome }: { McpSession: ObjectClass; McpTask: ObjectClass; McpHome: ObjectClass }) {
  return {
    McpSession: metered(McpSession, "session", ["apply"]),
    McpTask: metered(McpTask, "task", ["create", "get", "update", "cancel", "erase"]),
    McpHome: metered(McpHome, "home", ["run", "abort", "erase", "acquireShare", "releaseShare"]),
  };
}

/** The bench's routes: every meter, and the keys each metered object stores. */
export function meterRoutes() {
  return [
    { method: "GET", path: "/__meter", description: "bench: per-object counters", handle: () => Response.json(Object.fromEntries(meters)) },
    {
      method: "GET",
      path: "/__meter/keys",
      description: "bench: the keys each known object stores",
      handle: async (_request: Request, env: Record<string, unknown>) => {
        const bindings: Record<Kind, string> = { session: "MCP_SESSION", task: "MCP_TASK", home: "MCP_HOME" };
        const keys: Record<string, string[]> = {};
        for (const [id, { kind }] of meters) {
          const namespace = env[bindings[kind]] as DurableObjectNamespace;
          keys[id] = await (namespace.get(namespace.idFromString(id)) as unknown as { storedKeys(): Promise<string[]> }).storedKeys();
        }
        return Response.json(keys);
      },
    },
  ];
}

/**
 * The side of the home objects that requests use: the `Homes` a session object, a task object or
 * the Worker itself holds when `MCP_HOME` is bound. Each home reaches its own object
 * (`idFromName(homeName)`), from any isolate; a run is one RPC call carrying the request by value
 * and its context as a `Peer` function, and the request's cancellation follows as `abort`. Kept
 * apart from the object, as `durableTasks.ts` is.
 */
import type { Homes } from "../../../shared/home/Homes.ts";
import { handleHomeName, homeName } from "../../../shared/home/Homes.ts";
import { toRemote } from "./homePeer.ts";
import type { CompiledServer } from "../../../shared/server/CompiledServer.ts";
import type { HomeObject } from "./HomeObject.ts";
import { unsettle } from "../../../durable/settled.ts";
import type { ShareResource } from "../../../shared/shares/Shares.ts";

export type { HomeObject };

export function durableHomes(namespace: DurableObjectNamespace<HomeObject>, server: CompiledServer): Homes {
  const stub = (name: string) => namespace.get(namespace.idFromName(name));
  return {
    async run(address, call, ctx) {
      ctx.signal.throwIfAborted();
      const home = stub(homeName(address));
      const { remote, peer } = toRemote(call, ctx, server);
      const abort = () => void home.abort(remote.callId).catch(() => {});
      ctx.signal.addEventListener("abort", abort, { once: true });
      try {
        return unsettle(await home.run(address, remote, peer));
      } finally {
        ctx.signal.removeEventListener("abort", abort);
      }
    },
    erase: async (owner) => void (await eraseUserHome(namespace, owner)),
  };
}

/**
 * Deletes the home of the principal with this digest — every key, table and alarm of its object —
 * then the homes of the handles minted for them (their holdings are that index), and answers the
 * sessions and tasks it held.
 */
export async function eraseUserHome(namespace: DurableObjectNamespace<HomeObject>, owner: string): Promise<Record<ShareResource, string[]>> {
  const held = await namespace.get(namespace.idFromName(homeName({ kind: "user", owner }))).erase();
  await Promise.all(held.handle.map((id) => namespace.get(namespace.idFromName(handleHomeName(id))).erase()));
  return held;
}

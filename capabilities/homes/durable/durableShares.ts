/**
 * Fair shares on Workers: each client's counters live in its home object — a signed-in
 * user's own (`user:<owner>`), else one per client address (`client:<clientKey>`) — so a
 * client's sessions, tasks and handles are counted wherever they are created, from any isolate. One RPC
 * call to take a share (and renew it, as a session's deadline is pushed), one to give it back;
 * a share that is never given back lapses at its deadline.
 */
import { McpError } from "../../../shared/errors/McpError.ts";
import { PASSED, refused } from "../../../shared/errors/Checked.ts";
import { clientHomeName } from "../../../shared/home/Homes.ts";
import type { Shares } from "../../../shared/shares/Shares.ts";
import type { HomeObject } from "./HomeObject.ts";
import { unsettle } from "../../../durable/settled.ts";

export function durableShares(namespace: DurableObjectNamespace<HomeObject>): Shares {
  const stub = (shareKey: string) => namespace.get(namespace.idFromName(clientHomeName(shareKey)));
  return {
    async acquire(resource, shareKey, id, claim = {}) {
      try {
        unsettle(await stub(shareKey).acquireShare(resource, id, claim));
        return PASSED;
      } catch (error) {
        if (error instanceof McpError) return refused(error);
        throw error;
      }
    },
    release: (resource, shareKey, id) => stub(shareKey).releaseShare(resource, id),
  };
}

/**
 * Homes in a Deno KV file (`serveDeno --kv`, `kvStore`): the same `LocalHomes`, with each home's
 * store under `["home", <name>]` (`KvStorage.home`) and the index of when each is due in the same
 * file (`KvHomeExpiries`), so several processes on one file share them and a restarted one finds
 * them. Its `start()` wakes what fell due while no process ran: a file written before the index
 * existed is indexed first.
 */
import { KvStorage } from "../../../deno/kv/KvStorage.ts";
import type { LocalHomesOptions } from "../../../shared/home/LocalHomesPart.ts";
import { LocalHomes } from "../LocalHomes.ts";
import { KvHomeExpiries } from "./KvHomeExpiries.ts";

/** @example const homes = kvHomes(kv, { server, config, logger }); await homes.start(); … homes.close(); */
export function kvHomes(kv: Deno.Kv, options: Omit<LocalHomesOptions, "storeFor">): LocalHomes {
  return new LocalHomes({ ...options, storeFor: (name) => KvStorage.home(kv, name), expiries: new KvHomeExpiries(kv) });
}

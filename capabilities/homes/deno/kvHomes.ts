/**
 * Homes in a Deno KV file (`serveDeno --kv`): the same `LocalHomes`, with each home's store under
 * `["home", <name>]` (`KvStorage.home`) and the index of when each is due in the same file
 * (`KvHomeExpiries`), so several processes on one file share them and a restarted one finds them.
 * Resolves once what fell due while no process ran has been woken: a file written before the index
 * existed is indexed first.
 */
import { KvStorage } from "../../../deno/kv/KvStorage.ts";
import type { LocalHomesOptions } from "../../../shared/home/LocalHomesPart.ts";
import { LocalHomes } from "../LocalHomes.ts";
import { KvHomeExpiries } from "./KvHomeExpiries.ts";

/** @example const homes = await kvHomes(kv, { server, config, logger }); … homes.close(); */
export async function kvHomes(kv: Deno.Kv, options: Omit<LocalHomesOptions, "storeFor">): Promise<LocalHomes> {
  const expiries = new KvHomeExpiries(kv);
  const homes = new LocalHomes({ ...options, storeFor: (name) => KvStorage.home(kv, name), expiries });
  await expiries.indexOnce(Date.now());
  await homes.start();
  return homes;
}

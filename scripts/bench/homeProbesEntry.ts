/**
 * What `homeProbes.mjs` runs, bundled: the example's `notebook` (a handle tool) in `LocalHomes`
 * in memory — as Node, Deno without `--kv`, stdio and `serveMessages` host it — called through
 * `runInHome` as the eras call it, by anonymous clients that only read.
 */
import * as z from "zod/mini";
import { notebook } from "../../example/notes.ts";
import { DEFAULT_CONFIG } from "../../shared/config/readConfig.ts";
import { newHandle } from "../../shared/home/Homes.ts";
import { LocalHomes } from "../../capabilities/homes/LocalHomes.ts";
import { runInHome } from "../../shared/home/runInHome.ts";
import { Logger } from "../../shared/log/Logger.ts";
import { homes as homesCapability } from "../../capabilities/homes/homes.ts";
import { stubContext } from "../../shared/testing/testKit.ts";
import { CompiledServer } from "../../shared/server/CompiledServer.ts";

const server = new CompiledServer({ name: "home-probes", version: "1", toJsonSchema: z.toJSONSchema, tools: [notebook], use: [homesCapability()] }).assertValid();
const homes = new LocalHomes({ server, config: DEFAULT_CONFIG, logger: new Logger("error") });
const method = server.method("tools/call")!;

/** One anonymous `notebook` `list`: with a random handle (answered as unknown), or with none (a fresh one that keeps nothing). */
export async function probe(i: number): Promise<void> {
  const args: Record<string, unknown> = i % 2 === 0 ? { notebook: newHandle(), action: "list" } : { action: "list" };
  await runInHome(server, "tools/call", { name: "notebook", arguments: args }, stubContext(), method, { homes, owner: undefined, client: async () => `address:${i}` });
}

/** Homes held in memory now. */
export function held(): number {
  return homes.size;
}

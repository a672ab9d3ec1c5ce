/**
 * The package root (`durable-mcp`) as the `workerd` export condition resolves it — wrangler's
 * bundler and vitest-pool-workers ask for that condition. The same names as everywhere else;
 * only the capability factories differ: each returns the same capability plus its part on
 * Workers (its Durable Object class and the client that reaches it), which `createWorker` reads
 * from the definition's `use` list. So a Worker ships a capability's objects only when its
 * definition calls the factory, and Deno, Node and type-checking never see `cloudflare:` code.
 */
export * from "../shared/index.ts";
export { tasks } from "../capabilities/tasks/durable/tasksOnWorkers.ts";
export { watch } from "../capabilities/watch/durable/watchOnWorkers.ts";
export { homes } from "../capabilities/homes/durable/homesOnWorkers.ts";

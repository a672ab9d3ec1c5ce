/**
 * The two Workers types the OAuth example names (`authorizationServer.ts`), as Deno's type check
 * sees them: deno.json lists this file in its `compilerOptions.types`, and `tsc` skips it (it has
 * Cloudflare's own declarations). What Deno gives in their place: `kvNamespace` over Deno KV, and
 * the context `example/oauth/deno.ts` makes.
 */
type KVNamespace = import("../../../capabilities/oauth/deno/kvNamespace.ts").KvNamespace;

interface ExecutionContext {
  waitUntil(promise: Promise<unknown>): void;
  passThroughOnException(): void;
  readonly props: unknown;
}

/**
 * `@cloudflare/workers-oauth-provider` on Deno, where deno.json maps the package's name to this
 * module: the same exports, so `authorizationServer.ts` and `consent.ts` are one code on both
 * runtimes.
 *
 * Why it is needed: the package is web-standard code but for its first line, which imports
 * `WorkerEntrypoint` from `cloudflare:workers` only to tell a handler class from a handler object.
 * Deno resolves no `cloudflare:` module, and its import map does not reach into an npm package.
 * So this module reads the package's file (it is one), puts a class of its own where that import
 * was (no handler here extends it: every handler is an object with `fetch`), and imports the
 * result. A version whose first line differs is refused with a sentence, not patched blindly.
 *
 * What differs on Deno: client ID metadata documents are off. The provider fetches them only where
 * `fetch` refuses private addresses (Workers' `global_fetch_strictly_public`), which Deno's does
 * not; its metadata then says `client_id_metadata_document_supported: false`, clients register
 * (`/register`) instead, and it prints a warning naming the Workers flag when it loads.
 */
import { createRequire } from "node:module";
import type * as Provider from "@cloudflare/workers-oauth-provider";

const PACKAGE = "@cloudflare/workers-oauth-provider";
const WORKERS_IMPORT = `import { WorkerEntrypoint } from "cloudflare:workers";`;

async function load(): Promise<typeof Provider> {
  const path = createRequire(import.meta.url).resolve(PACKAGE);
  const source = await Deno.readTextFile(path);
  if (!source.startsWith(WORKERS_IMPORT)) throw new Error(`${PACKAGE} at ${path} does not start with ${WORKERS_IMPORT}: this version cannot be loaded on Deno as it is; update example/oauth/deno/workersOAuthProvider.ts`);
  return await import(`data:text/javascript,${encodeURIComponent(`class WorkerEntrypoint {}${source.slice(WORKERS_IMPORT.length)}`)}`);
}

const provider = await load();

export type * from "@cloudflare/workers-oauth-provider";
export const {
  AuthorizationError,
  CimdFetchError,
  ExternalTokenError,
  GrantType,
  OAuthAuthorizationServer,
  OAuthError,
  OAuthProvider,
  OAuthResourceServer,
  authorizationErrorRedirect,
  getOAuthApi,
  insufficientScope,
} = provider;
export default provider.default;
// The classes and the enum are types too (a name exported here hides the same name's type above).
export type AuthorizationError = Provider.AuthorizationError;
export type CimdFetchError = Provider.CimdFetchError;
export type ExternalTokenError = Provider.ExternalTokenError;
export type GrantType = Provider.GrantType;
export type OAuthAuthorizationServer<Env = unknown> = Provider.OAuthAuthorizationServer<Env>;
export type OAuthError = Provider.OAuthError;
export type OAuthProvider<Env = unknown> = Provider.OAuthProvider<Env>;
export type OAuthResourceServer<Env = unknown, Props = unknown> = Provider.OAuthResourceServer<Env, Props>;

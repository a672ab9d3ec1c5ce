// @ts-check
/**
 * The exact versions a new project installs, the ones this repository tests with: its root
 * package.json pins the same (a unit test, test/unit/create/versions.test.ts, keeps them equal).
 * Exact, not ranges, so a new project runs what was tested, and installs from the cache a
 * checkout of this repository filled.
 *
 * `zod` is a dependency of the project (its schemas ship in the server), `postgres` an optional
 * one of a project served on Node (the driver of the store that keeps its state); the rest are tools.
 */
export const VERSIONS = Object.freeze({
  wrangler: "4.86.0",
  typescript: "5.9.3",
  vitest: "4.1.12",
  zod: "4.6.7",
  esbuild: "0.28.1",
  "@types/node": "20.19.43",
  deno: "2.9.5",
  postgres: "3.4.9",
});

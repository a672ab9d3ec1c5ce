/**
 * Size budgets, as tests: Workers measured the way `wrangler deploy` uploads them (minified,
 * gzip as wrangler reports it), each held to its budget in `scripts/sizeBudgets.mjs`. A budget
 * that moves says why in its commit; `npm run size` prints each figure beside its budget, and
 * `docs/benchmarks.md` says what each bundle is made of.
 *
 * Pay for what you use: each optional part arrives only with the call that asks for it, and the
 * tests below prove it on the built script by looking for strings only that part's code holds —
 * the JSON Schema validator with `jsonSchema()`, the Apps and Skills extensions with `apps()` and
 * `skills()`, the task methods with `tasks()`, token checks with `oauth()`, rate limits with
 * `rateLimits()` or `oauth()`, the watch and task objects' clients with `watchObject()` and
 * `taskObject(server)`. Each marker is also asserted present in a Worker that asks for its part,
 * so an absence cannot pass because the marker was misspelled.
 */
import { describe, expect, it } from "vitest";
import { deploySize } from "../../scripts/deploySize.mjs";
import { BUDGETS } from "../../scripts/sizeBudgets.mjs";

/** Strings only the Apps and Skills extensions' code holds: their identifiers, methods and metadata keys. */
const EXTENSION_MARKERS = ["io.modelcontextprotocol/ui", "openai/outputTemplate", "io.modelcontextprotocol/skills", "skills/list", "resources/directory/read", "inode/directory"];

/** Strings only the tasks extension's request side holds (what `tasks()` brings): its methods' errors, and what a deployment without a task host lacks. */
const TASK_MARKERS = ["Task not found", "tasks/update needs", "this deployment hosts no tasks"];

/** Strings only the rate limits' code holds (what `rateLimits()` and `oauth()` bring): their 429's sentence and header, the binding they look for. */
const RATE_LIMIT_MARKERS = ["Too many requests from", "ratelimit-policy", "MCP_RATE_LIMIT_ADDRESS"];

/**
 * Strings only the capabilities' object classes and clients hold (what `watch()`, `tasks()` and
 * `homes()` bring on Workers): the listeners' URLs, the watch object's refusal, the home objects'
 * fair-share methods.
 */
const OBJECT_MARKERS = ["https://watch.internal/listen", "A watch object takes listeners only", "https://task.internal/listen", "acquireShare", "releaseShare"];

/**
 * Strings only the token checks' code holds (what `oauth()` brings, and the verifier the OAuth
 * example gives it): the resource server's metadata path, its metadata's fields, its challenge's
 * error, and `providerVerifier`'s refusal.
 */
const AUTHORIZATION_MARKERS = ["oauth-protected-resource", "scopes_supported", "insufficient_scope", "The access token is unknown, expired, revoked"];

/** Strings only `@cfworker/json-schema`'s code holds, minified or not: its messages and its base URI. */
const VALIDATOR_MARKERS = ["Duplicate schema URI", "does not match additional properties schema", "A subschema had errors", "github.com/cfworker"];

describe("bundle budgets", () => {
  it(`ships the example Worker, its App and skill included, in at most ${BUDGETS.example} KiB gzip, with no JSON Schema validator (its schemas are zod/mini's)`, async () => {
    const { gzipKib, code } = await deploySize();
    expect(gzipKib).toBeGreaterThan(10);
    expect(gzipKib).toBeLessThanOrEqual(BUDGETS.example);
    // The markers below are in the example's script: the check that they are absent elsewhere can fail.
    for (const marker of [...EXTENSION_MARKERS, ...TASK_MARKERS, ...OBJECT_MARKERS]) expect(code).toContain(marker);
    for (const marker of [...VALIDATOR_MARKERS, ...AUTHORIZATION_MARKERS, ...RATE_LIMIT_MARKERS]) expect(code).not.toContain(marker);
  });

  it(`ships a Worker whose tools use jsonSchema() only in at most ${BUDGETS.jsonSchema} KiB gzip, its validator included, with no extension's, task's, token check's, rate limit's, watch, task or home object's code`, async () => {
    const { gzipKib, code } = await deploySize("test/bundle/rawSchemaWorker.ts", "test/bundle/wrangler.toml");
    expect(gzipKib).toBeGreaterThan(10);
    expect(gzipKib).toBeLessThanOrEqual(BUDGETS.jsonSchema);
    for (const marker of VALIDATOR_MARKERS) expect(code).toContain(marker);
    for (const marker of [...EXTENSION_MARKERS, ...TASK_MARKERS, ...AUTHORIZATION_MARKERS, ...RATE_LIMIT_MARKERS, ...OBJECT_MARKERS]) expect(code).not.toContain(marker);
  });

  it("ships none of the JSON Schema validator in a Worker whose tools use no jsonSchema() (the one-tool zod/mini Worker)", async () => {
    const { code } = await deploySize("test/bundle/miniZodWorker.ts", "test/bundle/wrangler.toml");
    expect(code).toContain("Invalid arguments for tool");
    for (const marker of VALIDATOR_MARKERS) expect(code).not.toContain(marker);
  });

  it("ships the token checks and rate limits in a Worker that asks for them with oauth() (the OAuth example)", async () => {
    const { code } = await deploySize(undefined, "example/oauth/wrangler.toml");
    for (const marker of [...AUTHORIZATION_MARKERS, ...RATE_LIMIT_MARKERS]) expect(code).toContain(marker);
  });
});

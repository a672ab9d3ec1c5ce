/**
 * The size budgets, in KiB gzip as `wrangler deploy` reports it: `test/bundle/bundle.test.ts`
 * holds each Worker to its budget, and `npm run size` prints it beside the figure. A budget moves
 * down, not up, saying why in that test's header. The goals are issue 23's targets. (Raised once,
 * by 0.2 and 0.3 KiB, for the public surface: a definition the runtime entries check before they
 * use it, and `worker.deleteUserData`, which a Worker with homes now carries as a method.)
 */
export const BUDGETS = { example: 76.3, jsonSchema: 44.6 };
export const GOALS = { example: 50, jsonSchema: 32 };

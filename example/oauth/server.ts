/**
 * The example's tools behind OAuth: the weather, score and note tools of `example/server.ts` —
 * its `notepad` each signed-in user's own, kept in their home in every era and session — plus
 * two that show what authorization gives a handler:
 * - `whoami` answers with `ctx.auth` — the user, the scopes of this request's token, and what the
 *   consent page stored with the grant (its props);
 * - `scoreboard` declares the scope `scores:admin`: a token without it does not see it in
 *   `tools/list`, and a call gets 403 `insufficient_scope`, which a client answers by asking the
 *   user to grant more (step-up).
 */
import * as z from "zod/mini";
import { defineServer, tool } from "durable-mcp";
import { use, tools } from "../server.ts";
import { userNotepad } from "../notes.ts";
import { alertBoardTools } from "../alertBoard.ts";

/** The board's tools with the pick kept in the signed-in user's home: the same board in every chat. */
const userBoard = new Map(alertBoardTools("user").map((t) => [t.name, t]));

/** Every request needs this one; the consent page grants it unless the client asked for none of ours. */
export const BASE_SCOPE = "mcp";
/** What `scoreboard` needs beyond it. */
export const ADMIN_SCOPE = "scores:admin";
export const SCOPES = [BASE_SCOPE, ADMIN_SCOPE];

const SCOREBOARD = { zhangsan: 92.5, lisi: 80.0, wangwu: 67.0 };

export default defineServer({
  name: "my-weather-server-oauth",
  version: "0.0.1",
  toJsonSchema: z.toJSONSchema,
  use,
  tools: [
    // The example's tools, but the note pad and the alert board's pick are each signed-in user's own (home: "user").
    ...tools.map((t) => (t.name === "notepad" ? userNotepad : (userBoard.get(t.name) ?? t))),
    tool({
      name: "whoami",
      title: "Who am I",
      description: "Shows who this request acts for: the user, the scopes its access token grants, and what the consent page recorded",
      input: z.strictObject({}),
      annotations: { readOnlyHint: true },
      handler: async (_args, ctx) => JSON.stringify({ issuer: ctx.auth?.issuer, subject: ctx.auth?.subject, scopes: ctx.auth?.scopes, props: ctx.auth?.props, client: ctx.auth?.claims.client_id }),
    }),
    tool({
      name: "scoreboard",
      title: "Scoreboard",
      description: `Every recorded score at once; needs the ${ADMIN_SCOPE} scope`,
      input: z.strictObject({}),
      annotations: { readOnlyHint: true },
      scopes: [ADMIN_SCOPE],
      handler: async () => JSON.stringify(SCOREBOARD),
    }),
  ],
});

/**
 * What the home runtime tests serve (`homeWorker.ts`): the OAuth example's tools — the weather
 * and score tools, the user's own `notepad` (home: "user") and the `notebook` (a handle) — plus
 * probes of what a home gives a handler: SQL, a long wait that reports progress and records its
 * abort, and a task whose handler runs in the user's home; a jar under a handle that can be closed
 * (`ctx.revokeHandle()`), and a second definition on the same argument, which may not open it.
 */
import * as z from "zod/mini";
import { defineServer, tool } from "durable-mcp";
import { use, tools } from "../../../example/server.ts";
import { userNotepad } from "../../../example/notes.ts";
import { pause } from "../../support/pause.ts";

export const homeServer = defineServer({
  name: "home-test-server",
  version: "1.0.0",
  toJsonSchema: z.toJSONSchema,
  // The example's alert board names its view: the example's extensions come with its tools.
  use,
  tools: [
    ...tools.map((t) => (t.name === "notepad" ? userNotepad : t)),
    tool({
      name: "sql_notes",
      description: "Adds a row of `bytes` characters to the user's SQL table; answers the rows and the database size",
      input: z.strictObject({ bytes: z.number().check(z.int(), z.minimum(0), z.maximum(1_000_000)) }),
      home: "user",
      handler: async ({ bytes }, ctx) => {
        const sql = ctx.storage.sql;
        if (!sql) return "no SQL here";
        sql.exec("CREATE TABLE IF NOT EXISTS notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)");
        if (bytes > 0) sql.exec("INSERT INTO notes (body) VALUES (?)", "n".repeat(bytes));
        const { rows } = sql.exec<{ rows: number }>("SELECT count(*) AS rows FROM notes").one();
        return JSON.stringify({ rows, size: sql.databaseSize });
      },
    }),
    tool({
      name: "user_wait",
      description: "In the user's home: reports progress, waits `ms` (or until aborted), and records an abort in the user's storage",
      input: z.strictObject({ ms: z.number().check(z.int(), z.minimum(0)) }),
      home: "user",
      handler: async ({ ms }, ctx) => {
        await ctx.progress(0, 1, "started in the home");
        try {
          await pause(ms, ctx.signal);
        } catch (reason) {
          await ctx.storage.put("aborted", String(reason));
          throw reason;
        }
        return `waited ${ms} ms`;
      },
    }),
    tool({
      name: "slow_task",
      description: "Runs only as a task: waits until cancelled (or `ms`)",
      input: z.strictObject({ ms: z.number().check(z.int(), z.minimum(0)) }),
      task: "required",
      handler: async ({ ms }, ctx) => {
        await pause(ms, ctx.signal);
        return "waited";
      },
    }),
    tool({
      name: "jar",
      description: "Under a handle: puts `text` in the jar, or closes the jar for good",
      input: z.strictObject({ jar: z.optional(z.string()), text: z.optional(z.string()), close: z.optional(z.boolean()) }),
      home: { handle: "jar" },
      handler: async ({ text, close }, ctx) => {
        if (close) {
          await ctx.revokeHandle!();
          return "closed";
        }
        if (text !== undefined) await ctx.storage.put("text", text);
        return JSON.stringify({ jar: ctx.handle, text: (await ctx.storage.get<string>("text")) ?? null });
      },
    }),
    tool({
      name: "jar_peek",
      description: "Another definition on the jar's argument: reads what a jar holds",
      input: z.strictObject({ jar: z.optional(z.string()) }),
      home: { handle: "jar" },
      handler: async (_args, ctx) => JSON.stringify((await ctx.storage.get<string>("text")) ?? null),
    }),
    tool({
      name: "user_task",
      description: "Runs only as a task, in the user's home: appends `text` to the user's notes",
      input: z.strictObject({ text: z.string() }),
      task: "required",
      home: "user",
      handler: async ({ text }, ctx) => {
        await ctx.storage.transaction(async (txn) => txn.put("notes", [...((await txn.get<string[]>("notes")) ?? []), text]));
        return `noted by task ${ctx.taskId}`;
      },
    }),
  ],
});

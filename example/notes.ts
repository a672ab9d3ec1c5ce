/**
 * The example's note pads, one per kind of state (docs/homes.md, "Choosing a home"):
 *
 * - `notepad`: the session's — for a 2025 or HTTP+SSE client, gone when its session ends;
 * - `notebook`: a handle's — any client, 2026-07-28 included, keeps it by passing its id back,
 *   and reads it as the resource `notebook://<id>` (`notebookNotes`), whose watchers each write
 *   tells;
 * - the OAuth example's `notepad` (`userNotepad`): the signed-in user's, the same in every era.
 *
 * One set of actions over whichever storage the tool's home gives it.
 */
import * as z from "zod/mini";
import { type HandlerStorage, type HomeStorage, resourceTemplate, tool, toolError } from "durable-mcp";

export const MAX_NOTES = 100;
const MAX_NOTE_CHARS = 2_000;

const action = z.enum(["add", "list", "clear"]);
const text = z.optional(z.string().check(z.describe('The note, for action "add"'), z.maxLength(MAX_NOTE_CHARS)));

/** The notes as a numbered list, the same in a tool's answer and a resource's text. */
function listed(notes: readonly string[]): string {
  return notes.length ? notes.map((n, i) => `${i + 1}. ${n}`).join("\n") : "The note pad is empty.";
}

/** add, list or clear the notes in `storage`; through a transaction where the storage has them, so concurrent adds lose nothing. */
async function keepNotes(storage: HandlerStorage | HomeStorage, act: "add" | "list" | "clear", note: string | undefined) {
  if (act === "add" && !note) return toolError('Action "add" needs a "text".');
  const update = async (txn: HandlerStorage) => {
    const notes = (await txn.get<string[]>("notes")) ?? [];
    if (act === "list") return listed(notes);
    if (act === "clear") {
      await txn.delete("notes");
      return `Cleared ${notes.length} note(s).`;
    }
    if (notes.length >= MAX_NOTES) return toolError(`The note pad is full (${MAX_NOTES} notes); clear it first.`);
    await txn.put("notes", [...notes, note!]);
    return `Noted. The pad has ${notes.length + 1} note(s).`;
  };
  return "transaction" in storage ? storage.transaction(update) : update(storage);
}

/** The session's note pad: a 2026-07-28 request has no session, and is pointed to the notebook. */
export const notepad = tool({
  name: "notepad",
  description: "A note pad private to this session: add a note, list the notes, or clear them. Notes last as long as the session.",
  input: z.strictObject({ action, text }),
  handler: async ({ action: act, text: note }, ctx) => {
    if (!ctx.storage) {
      return toolError("The note pad keeps notes in a session, and this client speaks protocol 2026-07-28, which has none. Use the notebook tool instead: it keeps notes under an id you pass back.");
    }
    return keepNotes(ctx.storage, act, note);
  },
});

/** A note pad under a handle: a call without `notebook` opens one, whose id the answer gives. */
export const notebook = tool({
  name: "notebook",
  description:
    'A notebook that outlives the connection: add a note, list the notes, or clear them. Call without "notebook" to open a new one; the answer names its id, which you pass as "notebook" from then on. A notebook unused for 90 days is deleted.',
  input: z.strictObject({ notebook: z.optional(z.string().check(z.describe("The notebook's id, from an earlier answer"))), action, text }),
  home: { handle: "notebook" },
  handler: async ({ notebook: given, action: act, text: note }, ctx) => {
    const result = await keepNotes(ctx.storage, act, note);
    if (typeof result !== "string") return result;
    // A write tells whoever watches the notebook's resource, in every era and on every process
    // (2025 `resources/subscribe`, 2026-07-28 `subscriptions/listen`): they read it again.
    if (act !== "list" && ctx.handle !== undefined) await ctx.resourceUpdated(notebookUri(ctx.handle));
    if (given !== undefined) return result;
    // A new notebook: it exists once something is stored in it, so only an "add" keeps it.
    return act === "add" ? `${result} This is notebook ${ctx.handle}: pass it as "notebook" to use it again.` : `${result} (No notebook was given, and none was kept: add a note to open one.)`;
  },
});

/** Where a notebook is read as a resource: its id after the scheme. */
export function notebookUri(handle: string): string {
  return `notebook://${handle}`;
}

/**
 * A notebook's notes as a resource, for a client that shows or watches them rather than calling
 * the tool. Named as the tool is, so it opens the tool's handles and no other's.
 */
export const notebookNotes = resourceTemplate({
  uriTemplate: "notebook://{notebook}",
  name: "notebook",
  title: "Notebook",
  description: 'The notes of one notebook, by the id the notebook tool named. Subscribe to it to hear of each change.',
  mimeType: "text/plain",
  home: { handle: "notebook" },
  read: async (_vars, _uri, ctx) => listed((await ctx.storage.get<string[]>("notes")) ?? []),
});

/** The OAuth example's note pad: the signed-in user's own, in every era and every session. */
export const userNotepad = tool({
  name: "notepad",
  description: "Your own note pad, kept for you across sessions and clients: add a note, list the notes, or clear them. Notes unused for 90 days are deleted.",
  input: z.strictObject({ action, text }),
  home: "user",
  handler: async ({ action: act, text: note }, ctx) => keepNotes(ctx.storage, act, note),
});

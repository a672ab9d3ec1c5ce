/**
 * The example's MCP App: a board of active weather alerts for the states a person picked. One
 * tool shows it (`alertBoard`, for the model and the view); the view changes the picked states
 * through an app-only tool (`pickAlertStates`) the model never sees. The pick is kept where the
 * tools' home keeps state: the session's storage in `server.ts` (gone with the session; not kept
 * at all over 2026-07-28, which has no session), the signed-in user's own home in the OAuth example,
 * so that the board a person left in one chat shows the same states in the next, on any client.
 *
 * A client that renders views gets a one-line answer and the data as `structuredContent`; any
 * other client gets the alerts as text. When the weather service fails for a state, the answer is
 * still the board, that state's error beside the others.
 */
import * as z from "zod/mini";
import { type ContextIn, rendersViews, tool, view } from "durable-mcp";
import { BOARD_HTML } from "./alertBoardHtml.ts";
import { activeAlerts } from "./nws.ts";

/** How many states one board shows: each is one upstream request per refresh. */
export const MAX_BOARD_STATES = 8;
/** The alerts shown per state; the count says how many there are in all. */
const MAX_ALERTS_SHOWN = 5;
const BOARD_URI = "ui://my-weather-server/alert-board.html";

/** The view: an HTML document with its script inline, shipped in the bundle; it reaches no origin of its own. */
export const alertBoardView = view({
  uri: BOARD_URI,
  name: "alert-board",
  title: "Weather alert board",
  description: "Active US weather alerts for the states you picked; click a state to add or remove it.",
  html: BOARD_HTML,
  csp: { connectDomains: [], resourceDomains: [] },
  prefersBorder: true,
});

const states = z.array(z.string().check(z.regex(/^\s*[A-Za-z]{2}\s*$/))).check(z.maxLength(MAX_BOARD_STATES), z.describe("Two-letter US state codes (e.g. CA, NY)"));

/** One state on the board: its alerts, or why they could not be fetched this time. */
export type BoardState = { code: string; total: number; alerts: { event: string; severity: string; headline: string }[] } | { code: string; error: string };

/** What the view renders. */
export interface Board {
  picked: string[];
  /** Where the pick is kept: the person's own home, the session, or nowhere (no session, no sign-in). */
  kept: "user" | "session" | "none";
  /** The states asked for, in order: each with its alerts, or the error that kept them from being fetched. */
  states: BoardState[];
}

/** The board's two tools, keeping the pick in `home`'s storage. */
export function alertBoardTools<H extends "session" | "user">(home: H) {
  return [
    tool({
      name: "alertBoard",
      title: "Weather alert board",
      description: `Shows active weather alerts for the US states the person picked, as an interactive board where hosts render views. Pass "states" to pick them (at most ${MAX_BOARD_STATES}); without it, the board shows the last pick.`,
      input: z.strictObject({ states: z.optional(states) }),
      annotations: { readOnlyHint: false },
      ui: { view: BOARD_URI },
      home,
      handler: async (args, ctx) => board(args.states, ctx, home),
    }),
    tool({
      name: "pickAlertStates",
      title: "Pick the board's states",
      description: "Sets the states the alert board shows, and answers with the board. Called by the board itself.",
      input: z.strictObject({ states }),
      ui: { view: BOARD_URI, visibility: ["app"] },
      home,
      handler: async (args, ctx) => board(args.states, ctx, home),
    }),
  ];
}

/**
 * The board for `given` (the new pick) or for the kept pick. A state enters the pick only once its
 * alerts were fetched, and one already kept stays when they fail later: an upstream failure never
 * changes what is kept, so a failed state cannot stick to every later board. The answer is always
 * the board, the failing state's error beside the others, so the person can change it.
 */
async function board(given: string[] | undefined, ctx: ContextIn<"session" | "user">, home: "session" | "user") {
  const storage = ctx.storage as ContextIn<"session">["storage"];
  const kept = (await storage?.get<string[]>("alertBoard:picked")) ?? [];
  const asked = given ? [...new Set(given.map((code) => code.trim().toUpperCase()))] : kept;
  const base = ctx.env.NWS_BASE_URL || "https://api.weather.gov";
  const states = await Promise.all(asked.map((code) => boardState(base, code, ctx.signal)));
  const picked = asked.filter((code, i) => !("error" in states[i]!) || kept.includes(code));
  if (given && storage) await storage.put("alertBoard:picked", picked);
  const result: Board = { picked, kept: storage ? home : "none", states };
  const text = rendersViews(ctx) ? summary(result) : asText(result);
  return { content: [{ type: "text" as const, text }], structuredContent: result as unknown as Record<string, unknown> };
}

/** One state's alerts, or the reason they could not be fetched; a cancelled call still throws. */
async function boardState(base: string, code: string, signal: AbortSignal): Promise<BoardState> {
  try {
    const alerts = await activeAlerts(base, code, signal);
    const shown = alerts.slice(0, MAX_ALERTS_SHOWN).map((alert) => ({ event: alert.event ?? "Alert", severity: alert.severity ?? "Unknown", headline: alert.headline ?? "" }));
    return { code, total: alerts.length, alerts: shown };
  } catch (error) {
    if (signal.aborted) throw error;
    return { code, error: error instanceof Error ? error.message : String(error) };
  }
}

/** A state whose alerts could not be fetched, in words. */
function unavailable(state: { code: string; error: string }, result: Board): string {
  return `${state.code}${result.picked.includes(state.code) ? "" : " (not picked)"}: could not be shown. ${state.error}`;
}

/** The failing states, as sentences after the summary, or nothing. */
function failures(result: Board): string {
  return result.states.map((state) => ("error" in state ? ` ${unavailable(state, result)}` : "")).join("");
}

/** One line, for a client whose host shows the board. */
function summary(result: Board): string {
  if (result.picked.length === 0) return `The board is open with no states picked yet; the person can pick them on it.${failures(result)}`;
  const active = result.states.reduce((sum, state) => sum + ("total" in state ? state.total : 0), 0);
  return `The board shows ${active} active alert(s) across ${result.picked.join(", ")}.${failures(result)}`;
}

/** The whole board in text, for a client that renders no views. */
function asText(result: Board): string {
  if (result.picked.length === 0) return `No states are picked yet: call alertBoard with "states" (e.g. ["CA", "NY"]).${failures(result)}`;
  const kept = { user: "Kept for you across chats.", session: "Kept for this session.", none: "Not kept: pass the states again next time." }[result.kept];
  const lines = result.states.map((state) =>
    "error" in state
      ? unavailable(state, result)
      : state.total === 0 ? `${state.code}: no active alerts` : `${state.code}: ${state.total} active\n${state.alerts.map((alert) => `  - ${alert.event} (${alert.severity}): ${alert.headline}`).join("\n")}`,
  );
  return `${lines.join("\n")}\n${kept}`;
}

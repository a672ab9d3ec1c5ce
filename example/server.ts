/**
 * The example server: the surface of the "my-weather-server" captured talking to Cline 3.15.5
 * over HTTP+SSE, tool for tool and schema for schema, plus a note pad
 * that keeps per-session state in the session's storage, an alert sweep that runs as a durable
 * task for clients that support the tasks extension, and a notebook that keeps notes under a
 * handle, for every client (2026-07-28 included), in a home of its own, readable as the resource
 * `notebook://<id>` that announces each write (`notes.ts`). Two
 * extensions: an MCP App, a board of alerts for the states a person picks (`alertBoard.ts`), and
 * an Agent Skill that teaches a model these tools (`weatherSkill.ts`).
 *
 * This one file is all a server author writes: tools with input schemas and async handlers. The
 * schemas use zod/mini, the small build of zod, whose JSON Schema converter is named once below
 * (`toJsonSchema`); classic zod, valibot or arktype work the same way.
 */
import * as z from "zod/mini";
import { en } from "zod/locales";
import { apps, defineServer, otlp, type ServerEnv, homes, skills, tasks, tool, toolError, watch } from "durable-mcp";
import { alertBoardTools, alertBoardView } from "./alertBoard.ts";
import { weatherSkill } from "./weatherSkill.ts";
import { activeAlerts, alertsFor, forecastFor } from "./nws.ts";
import { notebook, notebookNotes, notepad } from "./notes.ts";

// zod/mini ships no messages of its own ("Invalid input"): English ones tell the model what a
// wrong argument should have been, so it can fix its call.
z.config(en());

/** The captured server's score table; `lisi` scores 80.0 as in the capture. */
const SCORES: Record<string, number> = { zhangsan: 92.5, lisi: 80.0, wangwu: 67.0 };
/** The states, territories and marine areas NWS issues alerts for number fewer than this. */
const MAX_SWEEP_AREAS = 80;

declare global {
  namespace DurableMcp {
    interface Env {
      /** The weather API's base URL; tests point it at a local stand-in. */
      NWS_BASE_URL?: string;
    }
  }
}

function nwsBase(env: ServerEnv): string {
  return env.NWS_BASE_URL || "https://api.weather.gov";
}

/** The tools, exported apart from the server so other definitions (tests, your own) can reuse them. */
export const tools = [
  tool({
    name: "toUpperCase",
    description: "Put the text to upper case",
    input: z.strictObject({ input: z.string() }),
    handler: async ({ input }) => input.toUpperCase(),
  }),
  tool({
    name: "getAlerts",
    description: "Get weather alerts for a US state. Input is Two-letter US state code (e.g. CA, NY)",
    input: z.strictObject({ state: z.string() }),
    handler: async ({ state }, ctx) => {
      const code = state.trim().toUpperCase();
      if (!/^[A-Z]{2}$/.test(code)) return toolError(`"${state}" is not a two-letter US state code (e.g. CA, NY).`);
      return alertsFor(nwsBase(ctx.env), code, ctx.signal);
    },
  }),
  tool({
    name: "getWeatherForecastByLocation",
    description: "Get weather forecast for a specific latitude/longitude",
    input: z.strictObject({
      latitude: z.number().check(z.meta({ format: "double" })),
      longitude: z.number().check(z.meta({ format: "double" })),
    }),
    handler: async ({ latitude, longitude }, ctx) => forecastFor(nwsBase(ctx.env), latitude, longitude, ctx.signal),
  }),
  tool({
    name: "getScore",
    description: "Get score for name. Input is someone's name (e.g. lisi)",
    input: z.strictObject({ name: z.string() }),
    handler: async ({ name }) => {
      const score = SCORES[name.trim().toLowerCase()];
      if (score === undefined) {
        return toolError(`No score recorded for "${name}". Known names: ${Object.keys(SCORES).join(", ")}.`);
      }
      // The captured server returned the score JSON-encoded ("\"80.0\""); kept byte for byte.
      return JSON.stringify(score.toFixed(1));
    },
  }),
  notepad,
  tool({
    name: "alertSweep",
    description:
      "Sweeps active weather alerts across many US states, one state at a time, and summarizes them. Slow over a slow upstream: a client that supports tasks gets a task to poll.",
    input: z.strictObject({
      states: z.array(z.string()).check(z.describe("Two-letter US state codes (e.g. CA, NY)"), z.minLength(1), z.maxLength(MAX_SWEEP_AREAS)),
    }),
    // A 2026-07-28 client that declares the tasks extension gets a task at once and polls it;
    // any other client gets the answer in the request, as from any tool.
    task: "optional",
    handler: async ({ states }, ctx) => {
      const codes = [...new Set(states.map((state) => state.trim().toUpperCase()))];
      const bad = codes.find((code) => !/^[A-Z]{2}$/.test(code));
      if (bad !== undefined) return toolError(`"${bad}" is not a two-letter US state code (e.g. CA, NY).`);
      // One state after another, not all at once: NWS asks clients to go easy on it. The sweep
      // only reads, so a task run that starts again from the top (after a deploy) does no harm.
      const lines: string[] = [];
      for (const [index, code] of codes.entries()) {
        const alerts = await activeAlerts(nwsBase(ctx.env), code, ctx.signal);
        const events = [...new Set(alerts.map((alert) => alert.event ?? "Unknown"))];
        lines.push(alerts.length === 0 ? `${code}: no active alerts` : `${code}: ${alerts.length} active (${events.join(", ")})`);
        await ctx.progress(index + 1, codes.length, `${code} done, ${index + 1} of ${codes.length} states`);
      }
      return lines.join("\n");
    },
  }),
  notebook,
  // The alert board and its app-only tool, keeping the pick in the session.
  ...alertBoardTools("session"),
];

/** The capabilities: the board's view (MCP Apps), the weather skill (Agent Skills), tasks for `alertSweep`, change fan-out for its resources, homes for its notebook, and traces (off until an OTLP endpoint is set). */
export const use = [apps({ views: [alertBoardView] }), skills({ skills: [weatherSkill] }), tasks(), watch(), homes(), otlp()];

// `telemetry`: request spans and durations to the collector an OTEL_EXPORTER_OTLP_ENDPOINT names; off without one.
export default defineServer({ name: "my-weather-server", version: "0.0.1", toJsonSchema: z.toJSONSchema, tools, resourceTemplates: [notebookNotes], use });

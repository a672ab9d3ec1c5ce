/**
 * The store benchmark's row check: its tools (`storesServer.ts`) behind sign-in, with `remember`
 * besides, which writes to the signed-in user's home, so that a user's home is among what the
 * check sees end. Access tokens are those of the issuer `JWT_ISSUER`, checked against its public
 * keys `JWT_KEYS` (a JWK Set), which the script makes for the run.
 */
import { defineServer, homes, jwtVerifier, oauth, tasks, tool, watch } from "durable-mcp";
import { serveNode } from "durable-mcp/node";
import { z } from "zod";
import { LAST, storeTools } from "./storesServer.ts";

type Env = Readonly<Record<string, unknown>>;

function read(env: Env, name: string): string {
  const value = env[name];
  if (typeof value !== "string" || value === "") throw new TypeError(`The store benchmark's signed-in server needs ${name}`);
  return value;
}

const remember = tool({
  name: "remember",
  description: "Keeps a text in your own home and answers it upper-cased",
  input: z.strictObject({ text: z.string() }),
  home: "user",
  handler: async ({ text }, ctx) => {
    await ctx.storage.put(LAST, text);
    return text.toUpperCase();
  },
});

const server = defineServer({ name: "bench-stores-signed-in", version: "1.0.0", tools: [...storeTools, remember], use: [homes(), tasks(), watch()] });

await serveNode(server, {
  authorization: oauth((env: Env) => ({
    authorizationServers: [read(env, "JWT_ISSUER")],
    verify: jwtVerifier({ issuer: read(env, "JWT_ISSUER"), keys: JSON.parse(read(env, "JWT_KEYS")) }),
    requiredScopes: ["mcp"],
  })),
});

/**
 * The sentences a deployment that cannot host its homes is reported with: on Workers, what is
 * bound instead of `MCP_HOME`, and the closest name, so a misspelled binding is found at once.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { tool } from "../server/defineServer.ts";
import { homeProblem, userHomeNeedsSignIn } from "./deploymentProblems.ts";
import { CompiledServer } from "../server/CompiledServer.ts";

const handles = new CompiledServer({
  name: "h",
  version: "1",
  tools: [tool({ name: "notebook", description: "d", input: z.object({ notebook: z.string().optional() }), home: { handle: "notebook" }, handler: async () => "" })],
});

describe("homeProblem", () => {
  it("names the Durable Object bindings there are when MCP_HOME is not one of them, and the closest", () => {
    const message = homeProblem(handles, false, false, ["MCP_SESSION", "MCP_WATCH", "MCP_HOMES"])?.message;
    expect(message).toMatch(/bind it as MCP_HOME/);
    expect(message).toMatch(/this Worker binds MCP_SESSION, MCP_WATCH and MCP_HOMES, and no MCP_HOME: is MCP_HOMES meant to be MCP_HOME\?$/);
  });

  it("suggests no name without HOME in it, and says when nothing is bound", () => {
    expect(homeProblem(handles, false, false, ["MCP_SESSION", "MCP_WATCH"])?.message).toMatch(/this Worker binds MCP_SESSION and MCP_WATCH, and no MCP_HOME$/);
    expect(homeProblem(handles, false, false, [])?.message).toMatch(/this Worker binds no Durable Object namespace$/);
  });

  it("says nothing of bindings where they are not known (not Workers), nor where homes are hosted", () => {
    expect(homeProblem(handles, false, false)?.message).toMatch(/bind it as MCP_HOME, with "McpHome" in a migration's new_sqlite_classes$/);
    expect(homeProblem(handles, false, true, ["MCP_HOMES"])).toBeUndefined();
  });

  it("words the missing sign-in for where it is, with the fix that fits there", () => {
    expect(userHomeNeedsSignIn("this deployment").message).toMatch(/: configure `authorization`, or keep that state under a handle/);
    expect(userHomeNeedsSignIn("this test client", "pass one").message).toMatch(/and this test client has no signed-in user: pass one, or keep/);
  });
});

import { describe, expect, it } from "vitest";
import { z } from "zod";
import { tool } from "../server/defineServer.ts";
import { jsonSchema } from "./jsonSchema.ts";
import { paramHeaders } from "./paramHeaders.ts";
import { CompiledServer } from "../server/CompiledServer.ts";

const object = (properties: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ type: "object", properties, ...extra });

describe("paramHeaders", () => {
  it("finds nothing in a schema without annotations", () => {
    expect(paramHeaders("t", object({ region: { type: "string" } }))).toEqual([]);
    expect(paramHeaders("t", { type: "object" })).toEqual([]);
  });

  it("reads the annotation of each top-level property, with its name and type", () => {
    const schema = object({
      region: { type: "string", "x-mcp-header": "Region" },
      count: { type: "integer", "x-mcp-header": "Count" },
      dryRun: { type: "boolean", "x-mcp-header": "Dry-Run" },
      note: { type: "string" },
    });
    expect(paramHeaders("t", schema)).toEqual([
      { path: ["region"], name: "Region", type: "string" },
      { path: ["count"], name: "Count", type: "integer" },
      { path: ["dryRun"], name: "Dry-Run", type: "boolean" },
    ]);
  });

  it("follows nested properties objects and reports the full path", () => {
    const schema = object({
      target: object({
        location: object({ region: { type: "string", "x-mcp-header": "Region" } }),
        zone: { type: "integer", "x-mcp-header": "Zone" },
      }),
    });
    expect(paramHeaders("t", schema)).toEqual([
      { path: ["target", "location", "region"], name: "Region", type: "string" },
      { path: ["target", "zone"], name: "Zone", type: "integer" },
    ]);
  });

  it("keeps the declared spelling of the name", () => {
    expect(paramHeaders("t", object({ a: { type: "string", "x-mcp-header": "tenant_ID" } }))[0]?.name).toBe("tenant_ID");
  });

  it("accepts every RFC 9110 token character", () => {
    const name = "!#$%&'*+.^_`|~-09AZaz";
    expect(paramHeaders("t", object({ a: { type: "string", "x-mcp-header": name } }))).toEqual([{ path: ["a"], name, type: "string" }]);
  });

  it("refuses names that are not header tokens, naming the tool and the argument", () => {
    for (const name of ["has space", "colon:name", "slash/name", "quote\"", "brace{", "ünï", "tab\tname", "comma,name"]) {
      expect(() => paramHeaders("search", object({ q: { type: "string", "x-mcp-header": name } })), name).toThrow(TypeError);
    }
    expect(() => paramHeaders("search", object({ q: { type: "string", "x-mcp-header": "a b" } }))).toThrow(/Tool search, argument q: "x-mcp-header" must be a non-empty header token/);
  });

  it("refuses an empty name and a name that is not a string", () => {
    for (const name of ["", 42, null, true, ["Region"], { name: "Region" }]) {
      expect(() => paramHeaders("t", object({ q: { type: "string", "x-mcp-header": name } })), JSON.stringify(name)).toThrow(TypeError);
    }
  });

  it("refuses names used twice, ignoring case", () => {
    const twice = object({ a: { type: "string", "x-mcp-header": "Region" }, b: { type: "string", "x-mcp-header": "region" } });
    expect(() => paramHeaders("t", twice)).toThrow(TypeError);
    expect(() => paramHeaders("t", twice)).toThrow(/"region" is used twice/);
    const acrossLevels = object({ a: { type: "string", "x-mcp-header": "Region" }, nested: object({ b: { type: "string", "x-mcp-header": "REGION" } }) });
    expect(() => paramHeaders("t", acrossLevels)).toThrow(/used twice/);
  });

  it("refuses a type other than string, integer or boolean", () => {
    for (const type of ["number", "object", "array", "null", undefined, ["string", "null"]]) {
      const property: Record<string, unknown> = { "x-mcp-header": "H" };
      if (type !== undefined) property.type = type;
      expect(() => paramHeaders("t", object({ q: property })), JSON.stringify(type)).toThrow(TypeError);
    }
    expect(() => paramHeaders("t", object({ q: { type: "number", "x-mcp-header": "H" } }))).toThrow(/needs "type" string, integer or boolean, got "number"/);
  });

  it("refuses an annotation not reachable through properties", () => {
    const unreachable = {
      items: object({ list: { type: "array", items: { type: "string", "x-mcp-header": "Item" } } }),
      anyOf: object({ choice: { anyOf: [{ type: "string", "x-mcp-header": "Choice" }, { type: "integer" }] } }),
      oneOf: object({ choice: { oneOf: [{ type: "string", "x-mcp-header": "Choice" }] } }),
      allOf: object({}, { allOf: [object({ x: { type: "string", "x-mcp-header": "X" } })] }),
      $defs: object({ ref: { $ref: "#/$defs/region" } }, { $defs: { region: { type: "string", "x-mcp-header": "Region" } } }),
      ifThen: object({ a: { type: "string" } }, { if: object({ a: { const: "x" } }), then: object({ b: { type: "string", "x-mcp-header": "B" } }) }),
      additionalProperties: object({}, { additionalProperties: { type: "string", "x-mcp-header": "Extra" } }),
      root: { type: "object", "x-mcp-header": "Root", properties: {} },
    };
    for (const [where, schema] of Object.entries(unreachable)) {
      expect(() => paramHeaders("t", schema), where).toThrow(/only allowed on properties reachable from the root/);
    }
  });

  it("refuses an unreachable annotation even next to a valid one", () => {
    const schema = object({
      region: { type: "string", "x-mcp-header": "Region" },
      list: { type: "array", items: { type: "string", "x-mcp-header": "Item" } },
    });
    expect(() => paramHeaders("t", schema)).toThrow(TypeError);
  });

  // An argument may be called anything, "x-mcp-header" included; only a property's own schema
  // carries the annotation.
  it("does not take a property named x-mcp-header for an annotation", () => {
    expect(paramHeaders("t", object({ "x-mcp-header": { type: "string" } }))).toEqual([]);
  });

  it("does not take data values (default, examples) for annotations", () => {
    const schema = object({ headers: { type: "object", default: { "x-mcp-header": "v" }, examples: [{ "x-mcp-header": "w" }] } });
    expect(paramHeaders("t", schema)).toEqual([]);
  });
});

describe("x-mcp-header in a server definition", () => {
  it("is read once at startup and served per tool", () => {
    const server = new CompiledServer({
      name: "s",
      version: "1",
      tools: [
        tool({
          name: "deploy",
          description: "Deploys",
          input: jsonSchema(object({ region: { type: "string", "x-mcp-header": "Region" } }) as { type: "object" }),
          handler: async () => "ok",
        }),
        tool({ name: "plain", description: "No headers", input: z.object({ region: z.string() }), handler: async () => "ok" }),
      ],
    });
    expect(server.paramHeaders("deploy")).toEqual([{ path: ["region"], name: "Region", type: "string" }]);
    expect(server.paramHeaders("plain")).toEqual([]);
    expect(server.paramHeaders("unknown")).toEqual([]);
  });

  it("refuses a tool with a broken annotation at startup", () => {
    const broken = tool({
      name: "broken",
      description: "Broken",
      input: jsonSchema(object({ n: { type: "number", "x-mcp-header": "N" } }) as { type: "object" }),
      handler: async () => "ok",
    });
    expect(() => new CompiledServer({ name: "s", version: "1", tools: [broken] }).assertValid()).toThrow(/Tool broken, argument n/);
  });
});

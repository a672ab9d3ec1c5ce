import { describe, it, expect } from "vitest";
import { defineServer, tool } from "../server/defineServer.ts";
import { MAX_ENTRY_CHARS } from "./boundedReport.ts";
import { jsonSchema, type JsonSchemaObject } from "./jsonSchema.ts";
import { MAX_REPORTED_ISSUES, validateStandard } from "./standardSchema.ts";

/** `a` refers to a string and, beside the `$ref`, limits its length: draft-07 ignores that sibling, 2019-09 on apply it. */
const refWithSibling = {
  type: "object",
  properties: { a: { $ref: "#/$defs/s", maxLength: 2 } },
  $defs: { s: { type: "string" } },
} as const satisfies JsonSchemaObject;

/** The message the core reports for `value` (`describeIssues`), or undefined when it is valid. */
async function report(schema: JsonSchemaObject, value: unknown): Promise<string | undefined> {
  const result = await validateStandard(jsonSchema(schema), value);
  return result.ok ? undefined : result.message;
}

/** The problem of a server whose one tool takes `input`, as its entries report it. */
function problemOf(input: ReturnType<typeof jsonSchema>, output?: ReturnType<typeof jsonSchema>): string | undefined {
  return defineServer({ name: "s", version: "1", tools: [tool({ name: "t", description: "", input, output, handler: async () => "" })] }).problem?.message;
}

describe("jsonSchema()", () => {
  it("passes a valid value through as it is", async () => {
    const value = { n: 1 };
    expect(await jsonSchema({ type: "object", properties: { n: { type: "integer" } } })["~standard"].validate(value)).toEqual({ value });
  });

  it("makes each failure an issue: the validator's message and schema location, at the instance location as a path", async () => {
    const schema = jsonSchema({ type: "object", properties: { n: { type: "integer" } }, required: ["n"] });
    expect(await schema["~standard"].validate({ n: 1.5 })).toEqual({
      issues: [{ message: 'Instance type "number" is invalid. Expected "integer". (schema #/properties/n/type)', path: ["n"] }],
    });
    expect(await report({ type: "object", required: ["n"] }, {})).toBe('✖ Instance does not have required property "n". (schema #/required)');
    expect(await report({ type: "object", properties: { n: { type: "integer" } } }, { n: 1.5 })).toBe(
      '✖ Instance type "number" is invalid. Expected "integer". (schema #/properties/n/type)\n  → at n',
    );
  });

  it("refuses, as an issue, a value whose failing key is not well-formed UTF-16 (the validator cannot encode its location)", async () => {
    const message = await report({ type: "object", additionalProperties: false }, JSON.parse('{"\\ud800": 1}'));
    expect(message).toMatch(/^✖ The value cannot be checked against the schema: .* \(a key or string that is not well-formed UTF-16\)$/);
  });

  it("writes array indices as numbers and decodes the pointer's escapes in names", async () => {
    const schema = { type: "object", properties: { "a/b~c": { type: "array", items: { type: "string" } }, "é #%": { type: "string" } } } satisfies JsonSchemaObject;
    const result = await jsonSchema(schema)["~standard"].validate({ "a/b~c": ["x", 1], "é #%": 2 });
    expect(result.issues?.map((issue) => issue.path)).toEqual([["a/b~c", 1], ["é #%"]]);
    expect(await report(schema, { "a/b~c": ["x", 1] })).toContain("\n  → at a/b~c[1]");
  });

  it("advertises the schema it was given, as it is", () => {
    const schema = { $schema: "http://json-schema.org/draft-07/schema#", type: "object", properties: { a: { type: "string" } } } satisfies JsonSchemaObject;
    const { jsonSchema: advertised } = jsonSchema(schema)["~standard"];
    expect(advertised?.input({ target: "draft-2020-12" })).toBe(schema);
    expect(advertised?.output({ target: "draft-2020-12" })).toBe(schema);
  });

  it("validates by 2020-12 rules when $schema is absent (the MCP default)", async () => {
    expect(await report(refWithSibling, { a: "abcd" })).toContain("→ at a");
  });

  it.each([
    ["http://json-schema.org/draft-07/schema#", undefined],
    ["https://json-schema.org/draft-07/schema", undefined],
    ["https://json-schema.org/draft/2020-12/schema", "→ at a"],
    ["https://json-schema.org/draft/2019-09/schema", "→ at a"],
  ])("honours $schema %s", async (dialect, expected) => {
    const result = await report({ ...refWithSibling, $schema: dialect }, { a: "abcd" });
    if (expected === undefined) expect(result).toBeUndefined();
    else expect(result).toContain(expected);
  });

  it("validates draft-04 schemas too", async () => {
    const schema = { $schema: "http://json-schema.org/draft-04/schema#", type: "object", properties: { n: { type: "number", minimum: 1, exclusiveMinimum: true } } } as const;
    expect(await report(schema, { n: 2 })).toBeUndefined();
    expect(await report(schema, { n: 1 })).toContain("→ at n");
  });

  it("does not annotate the schema it was given", async () => {
    const schema = structuredClone(refWithSibling);
    await validateStandard(jsonSchema(schema), { a: "x" });
    expect(Object.getOwnPropertyNames(schema)).toEqual(Object.keys(refWithSibling));
    expect(Object.getOwnPropertyNames(schema.properties.a)).toEqual(["$ref", "maxLength"]);
  });

  it("keeps the specific failures, and anyOf as the heading of its alternatives", async () => {
    const schema = { type: "object", properties: { p: { type: "object", properties: { q: { type: "string" } } } }, anyOf: [{ required: ["x"] }, { required: ["y"] }] } as const;
    const message = (await report(schema, { p: { q: 1 } }))!;
    expect(message.split("\n")).toEqual([
      "✖ Instance does not match any subschemas. (schema #/anyOf)",
      '✖ Instance does not have required property "x". (schema #/anyOf/0/required)',
      '✖ Instance does not have required property "y". (schema #/anyOf/1/required)',
      '✖ Instance type "number" is invalid. Expected "string". (schema #/properties/p/properties/q/type)',
      "  → at p.q",
    ]);
    expect(message).not.toContain("does not match schema");
  });
});

describe("jsonSchema()'s reports are bounded", () => {
  it("reports the first issues and counts the rest, in time linear in the number of failures", async () => {
    // 64,000 extra keys (about 650 KB of arguments) took the old pairwise filter over half a minute.
    const extra = 64_000;
    const message = (await report({ type: "object", properties: { a: { type: "string" } }, additionalProperties: false }, Object.fromEntries(Array.from({ length: extra }, (_, i) => [`k${i}`, 1]))))!;
    const lines = message.split("\n");
    expect(lines.filter((l) => l.startsWith("✖"))).toHaveLength(MAX_REPORTED_ISSUES);
    expect(lines[0]).toBe('✖ Property "k0" does not match additional properties schema. (schema #/additionalProperties)');
    expect(lines.at(-1)).toBe(`… and ${extra - MAX_REPORTED_ISSUES} more issues`);
    expect(lines).toHaveLength(MAX_REPORTED_ISSUES + 1);
  }, 20_000);

  it("says 1 more issue in the singular, and adds no count when every issue is shown", async () => {
    const closed = { type: "object", additionalProperties: false } as const;
    const keys = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 1]));
    expect((await report(closed, keys(MAX_REPORTED_ISSUES + 1)))!.split("\n").at(-1)).toBe("… and 1 more issue");
    expect(await report(closed, keys(MAX_REPORTED_ISSUES))).not.toContain("more issue");
  });

  it("cuts an issue that names a huge key", async () => {
    const message = (await report({ type: "object", additionalProperties: false }, { ["k".repeat(1_000_000)]: 1, ["j".repeat(1_000_000)]: 1 }))!;
    const lines = message.split("\n");
    expect(lines).toHaveLength(2);
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(MAX_ENTRY_CHARS);
  });
});

describe("jsonSchema()'s problems", () => {
  const unknownDialect = { type: "object", $schema: "https://example.com/my-dialect" } as const;
  const supported = "supported are JSON Schema 2020-12 (the default), 2019-09, draft-07 and draft-04";

  it("are not thrown when it is called: a module that calls it always imports", () => {
    expect(() => jsonSchema(unknownDialect)).not.toThrow();
    expect(() => jsonSchema({ type: "string" } as never)).not.toThrow();
  });

  it.each(["https://example.com/my-dialect", 7])("are the definition's, naming the tool: the unknown dialect %j", (dialect) => {
    const schema = jsonSchema({ type: "object", $schema: dialect });
    expect(problemOf(schema)).toBe(`The server definition is invalid: Tool t's input: "$schema" is ${JSON.stringify(dialect)}; ${supported}`);
    expect(problemOf(jsonSchema({ type: "object" }), schema)).toBe(`The server definition is invalid: Tool t's output: "$schema" is ${JSON.stringify(dialect)}; ${supported}`);
  });

  it("are found when the definition compiles, as the validator's own are (two schemas with one $id)", () => {
    const twice = jsonSchema({ type: "object", $defs: { a: { $id: "https://example.com/s" }, b: { $id: "https://example.com/s" } } });
    expect(problemOf(twice)).toBe('The server definition is invalid: Tool t\'s input: Duplicate schema URI "https://example.com/s".');
  });

  it("surface on use when no definition compiled the schema first", () => {
    expect(() => jsonSchema(unknownDialect)["~standard"].validate({})).toThrow(`"$schema" is "https://example.com/my-dialect"; ${supported}`);
  });
});

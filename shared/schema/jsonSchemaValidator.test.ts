import { describe, it, expect } from "vitest";
import { jsonSchemaValidator, MAX_REPORTED_ERRORS } from "./jsonSchemaValidator.ts";

/** `a` refers to a string and, beside the `$ref`, limits its length: draft-07 ignores that sibling, 2019-09 on apply it. */
const refWithSibling = {
  type: "object",
  properties: { a: { $ref: "#/$defs/s", maxLength: 2 } },
  $defs: { s: { type: "string" } },
};

describe("jsonSchemaValidator", () => {
  it("accepts a valid value and explains an invalid one with its location", () => {
    const check = jsonSchemaValidator({ type: "object", properties: { n: { type: "integer" } }, required: ["n"] }, "T");
    expect(check({ n: 1 })).toBeUndefined();
    expect(check({})).toBe('✖ Instance does not have required property "n".\n  → at # (schema #/required)');
    expect(check({ n: 1.5 })).toContain("→ at #/n");
  });

  it("validates by 2020-12 rules when $schema is absent (the MCP default)", () => {
    expect(jsonSchemaValidator(refWithSibling, "T")({ a: "abcd" })).toContain("→ at #/a");
  });

  it.each([
    ["http://json-schema.org/draft-07/schema#", undefined],
    ["https://json-schema.org/draft-07/schema", undefined],
    ["https://json-schema.org/draft/2020-12/schema", "→ at #/a"],
    ["https://json-schema.org/draft/2019-09/schema", "→ at #/a"],
  ])("honours $schema %s", (dialect, expected) => {
    const result = jsonSchemaValidator({ ...refWithSibling, $schema: dialect }, "T")({ a: "abcd" });
    if (expected === undefined) expect(result).toBeUndefined();
    else expect(result).toContain(expected);
  });

  it("validates draft-04 schemas too", () => {
    const check = jsonSchemaValidator({ $schema: "http://json-schema.org/draft-04/schema#", type: "object", properties: { n: { type: "number", minimum: 1, exclusiveMinimum: true } } }, "T");
    expect(check({ n: 2 })).toBeUndefined();
    expect(check({ n: 1 })).toContain("→ at #/n");
  });

  it.each(["https://example.com/my-dialect", 7])("refuses the unknown dialect %j at startup, naming the schema", (dialect) => {
    expect(() => jsonSchemaValidator({ type: "object", $schema: dialect }, "Tool t's inputSchema")).toThrow(/^Tool t's inputSchema has "\$schema": .*; supported are JSON Schema 2020-12/);
  });

  it("does not annotate the schema it was given", () => {
    const schema = structuredClone(refWithSibling);
    jsonSchemaValidator(schema, "T")({ a: "x" });
    expect(Object.getOwnPropertyNames(schema)).toEqual(Object.keys(refWithSibling));
    expect(Object.getOwnPropertyNames(schema.properties.a)).toEqual(["$ref", "maxLength"]);
  });

  it("keeps the specific failures, and anyOf as the heading of its alternatives", () => {
    const check = jsonSchemaValidator(
      { type: "object", properties: { p: { type: "object", properties: { q: { type: "string" } } } }, anyOf: [{ required: ["x"] }, { required: ["y"] }] },
      "T",
    );
    const message = check({ p: { q: 1 } })!;
    expect(message.split("\n").filter((l) => l.startsWith("✖"))).toEqual([
      "✖ Instance does not match any subschemas.",
      '✖ Instance does not have required property "x".',
      '✖ Instance does not have required property "y".',
      '✖ Instance type "number" is invalid. Expected "string".',
    ]);
    expect(message).not.toContain("does not match schema");
  });

  it("reports the first errors and counts the rest, in time linear in the number of errors", () => {
    // 64,000 extra keys (about 650 KB of arguments) took the old pairwise filter over half a minute.
    const extra = 64_000;
    const check = jsonSchemaValidator({ type: "object", properties: { a: { type: "string" } }, additionalProperties: false }, "T");
    const message = check(Object.fromEntries(Array.from({ length: extra }, (_, i) => [`k${i}`, 1])))!;
    const lines = message.split("\n");
    expect(lines.filter((l) => l.startsWith("✖"))).toHaveLength(MAX_REPORTED_ERRORS);
    expect(lines[0]).toBe('✖ Property "k0" does not match additional properties schema.');
    expect(lines[1]).toBe("  → at # (schema #/additionalProperties)");
    expect(lines.at(-1)).toBe(`… and ${extra - MAX_REPORTED_ERRORS} more errors`);
    expect(lines).toHaveLength(2 * MAX_REPORTED_ERRORS + 1);
  }, 20_000);

  it("says 1 more error in the singular, and adds no count when every error is shown", () => {
    const check = jsonSchemaValidator({ type: "object", additionalProperties: false }, "T");
    const eleven = Object.fromEntries(Array.from({ length: MAX_REPORTED_ERRORS + 1 }, (_, i) => [`k${i}`, 1]));
    expect(check(eleven)!.split("\n").at(-1)).toBe("… and 1 more error");
    const ten = Object.fromEntries(Array.from({ length: MAX_REPORTED_ERRORS }, (_, i) => [`k${i}`, 1]));
    expect(check(ten)).not.toContain("more error");
  });
});

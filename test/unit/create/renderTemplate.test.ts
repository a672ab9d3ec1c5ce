/** The template language of create-durable-mcp: placeholders, and blocks kept for some runtimes. */
import { describe, expect, it } from "vitest";
import { renderTemplate } from "../../../create/lib/renderTemplate.mjs";

const TEMPLATE = ["# {{name}}", "<!-- if workers,deno -->", "on Workers or Deno", "<!-- end -->", "  <!-- if node -->", "on Node", "  <!-- end -->", "end"].join("\n");

describe("renderTemplate", () => {
  it("fills placeholders, and keeps a block when any runtime it names was chosen", () => {
    expect(renderTemplate(TEMPLATE, { values: { name: "x" }, runtimes: ["deno"] })).toBe("# x\non Workers or Deno\nend");
    expect(renderTemplate(TEMPLATE, { values: { name: "x" }, runtimes: ["node", "workers"] })).toBe("# x\non Workers or Deno\non Node\nend");
    expect(renderTemplate(TEMPLATE, { values: { name: "x" }, runtimes: ["stdio"] })).toBe("# x\nend");
  });

  it("refuses a broken template: a placeholder without a value, a block not closed, nested or closed twice", () => {
    expect(() => renderTemplate("{{nam}}", { values: { name: "x" }, runtimes: [] })).toThrow("Template placeholder {{nam}} has no value.");
    expect(() => renderTemplate("<!-- if node -->\nx", { values: {}, runtimes: [] })).toThrow('Template has a block without its "<!-- end -->".');
    expect(() => renderTemplate("<!-- if node -->\n<!-- if deno -->", { values: {}, runtimes: [] })).toThrow("blocks do not nest");
    expect(() => renderTemplate("<!-- end -->", { values: {}, runtimes: [] })).toThrow("without its");
  });
});

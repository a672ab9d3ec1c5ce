import { describe, it, expect } from "vitest";
import { ErrorCode } from "../errors/errorCodes.ts";
import { McpError } from "../errors/McpError.ts";
import { DEFAULT_PAGE_SIZE, paginate } from "./paginate.ts";

const items = Array.from({ length: 25 }, (_, i) => i);

describe("paginate", () => {
  it("returns everything, with no cursor, when it fits one page", () => {
    expect(paginate([1, 2, 3], undefined)).toEqual({ page: [1, 2, 3] });
    expect(paginate(Array.from({ length: DEFAULT_PAGE_SIZE }, (_, i) => i), undefined)).not.toHaveProperty("nextCursor");
  });

  it("walks every item exactly once, page by page", () => {
    const seen: number[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const { page, nextCursor } = paginate(items, cursor, 10);
      seen.push(...page);
      cursor = nextCursor;
      pages++;
    } while (cursor !== undefined);
    expect(pages).toBe(3);
    expect(seen).toEqual(items);
  });

  it("ends without a cursor when the last page is exactly full", () => {
    const twenty = items.slice(0, 20);
    const first = paginate(twenty, undefined, 10);
    expect(first.page).toEqual(items.slice(0, 10));
    expect(paginate(twenty, first.nextCursor, 10)).toEqual({ page: items.slice(10, 20) });
  });

  it("accepts an offset at the very end as an empty page", () => {
    // Cursors are opaque to clients; this one is built with the module's own encoding.
    expect(paginate(items, btoa("o:25"), 10)).toEqual({ page: [] });
  });

  it.each([
    ["not base64", "%%%"],
    ["base64 of something else", btoa("offset=10")],
    ["a negative offset", btoa("o:-1")],
    ["an offset past the end", btoa("o:26")],
    ["a number", 10],
    ["null", null],
    ["an empty string", ""],
  ])("refuses a cursor that is %s with -32602", (_name, cursor) => {
    let thrown: unknown;
    try {
      paginate(items, cursor, 10);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(McpError);
    expect((thrown as McpError).code).toBe(ErrorCode.InvalidParams);
    expect((thrown as McpError).message).toBe(`Invalid cursor: ${JSON.stringify(cursor)}`);
  });
});

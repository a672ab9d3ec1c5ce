/**
 * Cursor pagination for the list methods (`tools/list` and kin) (MCP "Pagination"): the cursor is opaque to clients,
 * here an encoded offset. A cursor we did not issue is an InvalidParams error, as the spec asks.
 */
import { McpError } from "../errors/McpError.ts";

/** Items per page of every list result. Large enough that the example server fits one page. */
export const DEFAULT_PAGE_SIZE = 100;

export function paginate<T>(items: readonly T[], cursor: unknown, pageSize = DEFAULT_PAGE_SIZE): { page: T[]; nextCursor?: string } {
  const start = cursor === undefined ? 0 : decodeCursor(cursor, items.length);
  const end = start + pageSize;
  const page = items.slice(start, end);
  return end < items.length ? { page, nextCursor: encodeCursor(end) } : { page };
}

function encodeCursor(offset: number): string {
  return btoa(`o:${offset}`);
}

function decodeCursor(cursor: unknown, length: number): number {
  let offset = Number.NaN;
  if (typeof cursor === "string") {
    try {
      const match = /^o:(\d{1,9})$/.exec(atob(cursor));
      if (match) offset = Number(match[1]);
    } catch {
      // not base64: falls through to the error below
    }
  }
  if (!Number.isInteger(offset) || offset > length) {
    throw McpError.invalidParams(`Invalid cursor: ${JSON.stringify(cursor)}`);
  }
  return offset;
}

/**
 * A whole list result: one page under `key`, plus `nextCursor` when more remain (MCP `PaginatedResult`).
 *
 * @example listResult("prompts", prompts, params.cursor) // { prompts: [...], nextCursor?: "..." }
 */
export function listResult(key: string, items: readonly unknown[], cursor: unknown): Record<string, unknown> {
  const { page, nextCursor } = paginate(items, cursor);
  return nextCursor ? { [key]: page, nextCursor } : { [key]: page };
}

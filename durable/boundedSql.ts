/**
 * A home's `ctx.storage.sql` on Workers: the Durable Object's own SQLite database, bounded like
 * the rest of the home. Each statement runs in a transaction of its own (`transactionSync`) and
 * its rows are read at once; a statement that leaves the database larger than MAX_HOME_BYTES (and
 * larger than before it) is rolled back, and throws a sentence saying so. The database's size
 * counts every table of the object, the key-value one included, in whole pages.
 *
 * Not here: SQL on Deno (a home there has none), nesting inside `ctx.storage.transaction()`.
 */
import type { SqlDatabase, SqlRows, SqlValue } from "../shared/definition/RequestContext.ts";

/** @param wrote told when a statement changed rows: the home then exists (and expires) even with no key stored */
export function boundedSql(storage: DurableObjectStorage, maxBytes: number, wrote: () => void): SqlDatabase {
  const sql = storage.sql;
  return {
    get databaseSize() {
      return sql.databaseSize;
    },
    exec<T extends Record<string, SqlValue>>(query: string, ...bindings: SqlValue[]): SqlRows<T> {
      const { read, ...counts } = storage.transactionSync(() => {
        const before = sql.databaseSize;
        const cursor = sql.exec<T>(query, ...bindings);
        const read = cursor.toArray();
        const after = sql.databaseSize;
        if (after > maxBytes && after > before) {
          throw new RangeError(`This storage is full: the statement would bring its database to ${after} bytes, past the ${maxBytes} it may hold (MAX_HOME_BYTES); nothing was changed`);
        }
        return { read, columnNames: cursor.columnNames, rowsRead: cursor.rowsRead, rowsWritten: cursor.rowsWritten };
      });
      if (counts.rowsWritten > 0) wrote();
      return {
        ...counts,
        toArray: () => read,
        one: () => {
          if (read.length !== 1) throw new Error(`Expected exactly one row, got ${read.length}`);
          return read[0]!;
        },
        [Symbol.iterator]: () => read[Symbol.iterator](),
      };
    },
  };
}

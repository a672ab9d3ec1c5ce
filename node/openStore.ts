/**
 * The store a server was asked for, opened: a `Store` as given, a `postgres://` URL as a
 * PostgreSQL store (`postgresStore`), nothing as memory. Anything else given as the option or
 * `--store` is refused with a sentence saying what is taken, so a mistyped store never falls back
 * to memory silently. `DATABASE_URL` counts only when it names PostgreSQL: platforms set it for
 * databases of other kinds, which are not this server's to refuse.
 */
import { memoryStore, type Store } from "../shared/runtime/Store.ts";
import { isPostgresUrl, postgresStore } from "./postgresStore.ts";

export async function openStore(given: string | Store | undefined, databaseUrl: string | undefined): Promise<Store> {
  const store = given ?? (databaseUrl && isPostgresUrl(databaseUrl) ? databaseUrl : undefined);
  if (store === undefined || store === "") return memoryStore();
  if (typeof store !== "string") return store;
  if (isPostgresUrl(store)) return postgresStore(store);
  throw new Error(`A store is a PostgreSQL URL (postgres://user@host/database); got ${JSON.stringify(store.replace(/\/\/[^@/]*@/, "//…@").slice(0, 80))}`);
}

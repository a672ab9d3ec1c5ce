/**
 * The bench's Worker (`floorWorker.ts`) with its platform calls counted (`platformCounters.ts`,
 * installed first): `GET /floor/counts` answers them and starts afresh. For `npm run bench:calls`.
 */
import { takeCounts } from "./platformCounters.ts";
import floor from "./floorWorker.ts";

export { FloorObject, McpHome, McpSession, McpTask, McpWatch } from "./floorWorker.ts";

export default {
  async fetch(request, env, ctx) {
    if (new URL(request.url).pathname === "/floor/counts") return Response.json(takeCounts());
    return floor.fetch!(request, env, ctx);
  },
} satisfies ExportedHandler;

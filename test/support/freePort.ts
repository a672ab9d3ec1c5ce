/**
 * Test helper: a TCP port free on 127.0.0.1 a moment ago, for a server that must be told its port
 * before it starts (`wrangler dev --port N`). Another process may take it in between; on a test
 * machine that is rare, and the server then fails to start, saying so.
 */
import { createServer } from "node:net";

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer()
      .once("error", reject)
      .listen(0, "127.0.0.1", () => {
        const { port } = probe.address() as { port: number };
        probe.close(() => resolve(port));
      });
  });
}

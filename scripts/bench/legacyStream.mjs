/**
 * What the memory benchmarks share: a legacy HTTP+SSE stream on a raw `node:http` socket, so that
 * reading can be paused and resumed at will (a client that stops reading).
 */
import { request } from "node:http";
import { sseEvents } from "./sseEvents.mjs";

/** Opens /sse on a raw socket so reading can be paused and resumed at will. */
export function openLegacyStream(port) {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path: "/sse", headers: { accept: "text/event-stream" } }, (res) => {
      const messages = [];
      let endpoint;
      let waiter;
      res.setEncoding("utf8");
      const onEvent = sseEvents((event, data) => {
        if (event === "endpoint") {
          endpoint = data;
          resolve(stream);
        } else if (event === "message") messages.push(JSON.parse(data));
      });
      res.on("data", (chunk) => {
        onEvent(chunk);
        waiter?.();
      });
      const stream = {
        get endpoint() {
          return endpoint;
        },
        messages,
        pause: () => res.pause(),
        resume: () => res.resume(),
        close: () => res.destroy(),
        async until(predicate, timeoutMs) {
          const deadline = Date.now() + timeoutMs;
          while (!predicate()) {
            if (Date.now() > deadline) throw new Error("timed out waiting for replies");
            await new Promise((r) => {
              waiter = r;
              setTimeout(r, 100);
            });
          }
        },
      };
    });
    req.on("error", reject);
    req.end();
  });
}

/**
 * What the memory benchmarks share: a legacy HTTP+SSE stream on a raw `node:http` socket, so that
 * reading can be paused and resumed at will (a client that stops reading), and the RSS of the
 * workerd processes this node process started.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { request } from "node:http";
import { sseEvents } from "./sseEvents.mjs";

/** RSS in MiB of the workerd processes this node process started. */
export function workerdRssMiB() {
  const pids = execFileSync("pgrep", ["-P", String(process.pid)], { encoding: "utf8" }).split("\n").filter(Boolean);
  let kib = 0;
  for (const pid of pids) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, "utf8").includes("workerd")) continue;
      kib += Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))[1]);
    } catch {
      // the process ended between listing and reading
    }
  }
  return kib / 1024;
}

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

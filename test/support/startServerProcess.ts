/**
 * Test helper: a server in a process of its own whose console a test can read — every line it,
 * and the children it runs (workerd under wrangler or miniflare), print on stdout and stderr,
 * each with the time it arrived. An in-process server would print among vitest's own output,
 * where nothing can be asserted about it.
 *
 * The server is ready once `/health` answers 200, at the URL given or at the one it prints
 * (`serving on URL`); a server that exits first, or is not ready in time, fails with what it
 * printed. `stop()` ends it by its PID: SIGTERM (every server here shuts down cleanly on it),
 * then SIGKILL to its process group — its own, as it is spawned detached — for whatever is left.
 *
 * @example
 * const server = await startServerProcess({ command: [deno, ...DENO_FLAGS, "example/deno.ts", "--port", "0"] });
 * const since = Date.now();
 * await fetch(`${server.url}/sse`);
 * expect(server.printed(since).map((line) => line.text).join("\n")).not.toContain("Uncaught");
 * await server.stop();
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { setTimeout as sleep } from "node:timers/promises";

const ROOT = resolve(fileURLToPath(import.meta.url), "../../..");
/** How long a server may take to answer `/health`: `wrangler dev` bundles and boots two workerd services first. */
const READY_TIMEOUT_MS = 60_000;
/** How long SIGTERM has to end a server before its group is killed. */
const STOP_GRACE_MS = 10_000;
const POLL_MS = 100;
/** One `/health` request; a server that is still booting may hold it. */
const HEALTH_TIMEOUT_MS = 5_000;

export interface PrintedLine {
  /** `Date.now()` when the line arrived. */
  at: number;
  text: string;
}

export interface ServerCommand {
  /** Program and arguments. */
  command: string[];
  /** Where it runs. Default: the repository's root. */
  cwd?: string;
  /** Added to this process's environment. */
  env?: Record<string, string>;
  /** The base URL, when the command sets the port; otherwise read from the `serving on URL` line it prints. */
  url?: string;
  /** What must answer 200 for the server to be ready. Default `/health`; behind authorization, its open metadata. */
  readyPath?: string;
}

export interface ServerProcess {
  url: string;
  pid: number;
  /** Lines printed since `since` (a `Date.now()`), in arrival order. */
  printed(since?: number): PrintedLine[];
  /** The first line printed at or after `since` that matches, once it arrives; undefined after `timeoutMs`. */
  waitForLine(pattern: RegExp, since: number, timeoutMs: number): Promise<PrintedLine | undefined>;
  stop(): Promise<void>;
}

export async function startServerProcess({ command, cwd = ROOT, env = {}, url, readyPath = "/health" }: ServerCommand): Promise<ServerProcess> {
  const [program, ...args] = command;
  const child = spawn(program!, args, { cwd, detached: true, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, ...env } });
  const lines: PrintedLine[] = [];
  for (const stream of [child.stdout!, child.stderr!]) {
    let partial = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => {
      const parts = (partial + chunk).split("\n");
      partial = parts.pop()!;
      for (const text of parts) lines.push({ at: Date.now(), text });
    });
    stream.on("end", () => partial && lines.push({ at: Date.now(), text: partial }));
  }
  let spawnError: Error | undefined;
  child.once("error", (error) => (spawnError = error));
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const running = () => spawnError === undefined && child.exitCode === null && child.signalCode === null;
  const printed = (since = 0) => lines.filter((line) => line.at >= since);
  const pid = child.pid ?? 0;
  const groupAlive = () => {
    if (pid === 0) return false;
    try {
      process.kill(-pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  const server: ServerProcess = {
    url: "",
    pid,
    printed,
    async waitForLine(pattern, since, timeoutMs) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const line = printed(since).find((l) => pattern.test(l.text));
        if (line || Date.now() >= deadline) return line;
        await sleep(POLL_MS);
      }
    },
    async stop() {
      if (running()) {
        child.kill("SIGTERM");
        await Promise.race([exited, sleep(STOP_GRACE_MS)]);
      }
      // What outlived SIGTERM (the server, or a workerd its wrangler or miniflare left behind).
      for (const deadline = Date.now() + STOP_GRACE_MS; groupAlive() && Date.now() < deadline; ) await sleep(POLL_MS);
      if (groupAlive()) process.kill(-pid, "SIGKILL");
    },
  };

  const deadline = Date.now() + READY_TIMEOUT_MS;
  const failure = (why: string) => new Error(`${command.join(" ")} ${why}; it printed:\n${lines.map((l) => l.text).join("\n")}`);
  try {
    for (;;) {
      if (!running()) throw failure(spawnError ? `could not start (${spawnError.message})` : `exited (${child.exitCode ?? child.signalCode}) before answering ${readyPath}`);
      if (Date.now() >= deadline) throw failure(`did not answer ${readyPath} within ${READY_TIMEOUT_MS} ms`);
      server.url ||= url ?? /serving on (http:\/\/\S+)/.exec(lines.map((l) => l.text).join("\n"))?.[1] ?? "";
      const health = server.url ? await fetch(`${server.url}${readyPath}`, { signal: AbortSignal.timeout(HEALTH_TIMEOUT_MS) }).catch(() => undefined) : undefined;
      await health?.arrayBuffer();
      if (health?.status === 200) return server;
      await sleep(POLL_MS * 2);
    }
  } catch (error) {
    await server.stop();
    throw error;
  }
}

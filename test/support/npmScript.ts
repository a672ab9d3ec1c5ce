/**
 * Runs one of the README's npm scripts the way a user does (`npm start -- --port N …`), on a free
 * loopback port, and waits until it answers `/health`. The whole process group (npm, node,
 * wrangler, workerd or Deno) is stopped by `stop()`.
 */
import { freePort } from "./freePort.ts";
import { type ChildProcess, spawn } from "node:child_process";

export interface NpmScript {
  base: string;
  child: ChildProcess;
  /** Everything the script printed so far, for failure messages. */
  output(): string;
  /** The first `/health` answer, or undefined when none came in time (or the script exited). */
  health: Response | undefined;
  stop(): void;
}

/** @param script e.g. ["start"] or ["run", "start:deno"]; `args` go after `-- --port N`. */
export async function npmScript(script: string[], args: string[] = [], timeoutMs = 75_000): Promise<NpmScript> {
  const port = await freePort();
  const child = spawn("npm", [...script, "--", "--port", String(port), ...args], { detached: true, stdio: ["ignore", "pipe", "pipe"], env: { ...process.env, CI: "true" } });
  let output = "";
  child.stdout!.on("data", (d) => (output += d));
  child.stderr!.on("data", (d) => (output += d));
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + timeoutMs;
  let health: Response | undefined;
  while (!health && Date.now() < deadline && child.exitCode === null) {
    health = await fetch(`${base}/health`).catch(() => undefined);
    if (!health) await new Promise((r) => setTimeout(r, 250));
  }
  return {
    base,
    child,
    output: () => output,
    health,
    stop: () => {
      if (child.pid && child.exitCode === null) process.kill(-child.pid, "SIGTERM");
    },
  };
}


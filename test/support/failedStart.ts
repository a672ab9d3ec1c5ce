/**
 * Runs a server command that must refuse to start, and returns its exit code, the lines it wrote
 * on stderr (a start that fails says why in one line, and nothing else) and its stdout.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";

/** How long a refused start may take: the runtime's start-up, an unreachable database's connect timeout. */
const START_TIMEOUT_MS = 30_000;

export async function failedStart(command: string, args: readonly string[], env: Record<string, string | undefined>): Promise<{ code: number | undefined; lines: string[]; stdout: string }> {
  const failed = await promisify(execFile)(command, [...args], { env, timeout: START_TIMEOUT_MS }).then(
    () => undefined,
    (error: { code?: number; stderr: string; stdout: string }) => error,
  );
  if (!failed) throw new Error(`${command} ${args.join(" ")} started, where it should have refused to`);
  return { code: failed.code, lines: failed.stderr.trim().split("\n"), stdout: failed.stdout };
}

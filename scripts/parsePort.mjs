/**
 * Reads `--port N` (or `--port=N`, `-p N`) from command-line arguments.
 * @param {string[]} args
 * @param {number} fallback
 * @returns {{ port: number, rest: string[] }} the port, and the other arguments in order
 */
export function parsePort(args, fallback) {
  let port = fallback;
  const rest = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--port" || arg === "-p") port = Number(args[++i]);
    else if (arg.startsWith("--port=")) port = Number(arg.slice("--port=".length));
    else rest.push(arg);
  }
  if (!Number.isInteger(port) || port < 0 || port > 65_535) {
    console.error(`--port must be an integer from 0 to 65535, got ${JSON.stringify(port)}`);
    process.exit(2);
  }
  return { port, rest };
}

/**
 * Starts a server on Node (`durable-mcp/node`) the way the contract tests do, returning the same
 * shape as `startServer` so one test file drives any runtime. Node 20 runs no TypeScript, so the
 * entry is bundled first (esbuild, every dependency in, `node:` modules left to Node), as a user
 * bundles or compiles theirs. Variables come from wrangler.toml `[vars]` plus overrides, as on
 * workerd.
 *
 * @example
 * const server = await startNodeServer({ main: "example/node.ts", vars: { LOG_LEVEL: "error" } });
 * await fetch(`${server.url}/health`);
 * await server.dispose();
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { fromSource } from "./bundleWorker.mjs";
import { startServingProcess } from "./startServingProcess.mjs";
import { wranglerConfig } from "./wranglerConfig.mjs";

const ROOT = resolve(fileURLToPath(import.meta.url), "../..");

/**
 * @param {object} options
 * @param {string} [options.definition]  Module whose default export is the server, served by `serveNode`.
 * @param {string} [options.main]  A Node entry of its own (it takes `--port` and prints `serving on`; default: the example's).
 * @param {number} [options.port]  0 (default) picks a free port.
 * @param {Record<string, string>} [options.vars]
 * @param {boolean} [options.captureLogs]  Keep the lines the server writes once it serves, for `logs()`.
 * @param {string} [options.store]  A PostgreSQL URL: sessions and homes kept there (`--store`), else in memory.
 */
export async function startNodeServer({ definition, main, port = 0, vars = {}, captureLogs = false, store } = {}) {
  const bundled = await bundleNodeEntry({ definition, main });
  try {
    const env = { ...process.env, ...wranglerConfig().vars, ...vars, NO_COLOR: "1" };
    const command = [process.execPath, bundled.outfile, "--port", String(port), ...(store ? ["--store", store] : [])];
    const server = await startServingProcess({ command, env, runtime: "node", captureLogs });
    return {
      ...server,
      async dispose() {
        await server.dispose();
        bundled.remove();
      },
    };
  } catch (error) {
    bundled.remove();
    throw error;
  }
}

/**
 * The Node server as one ES module in a directory of its own: `definition` served by `serveNode`,
 * or the entry `main`. `remove()` deletes it (also done when this process exits).
 * @param {{ definition?: string, main?: string }} options
 * @returns {Promise<{ outfile: string, remove(): void }>}
 */
export async function bundleNodeEntry({ definition, main }) {
  const dir = mkdtempSync(join(tmpdir(), "durable-mcp-node-"));
  const remove = () => {
    process.removeListener("exit", remove);
    rmSync(dir, { recursive: true, force: true });
  };
  process.once("exit", remove);
  try {
    let entry = join(ROOT, main ?? "example/node.ts");
    if (definition) {
      entry = join(dir, "entry.ts");
      writeFileSync(entry, `import definition from ${JSON.stringify(join(ROOT, definition))};\nimport { serveNode } from "durable-mcp/node";\nawait serveNode(definition);\n`);
    }
    const outfile = join(dir, "server.mjs");
    await build({
      entryPoints: [entry],
      outfile,
      bundle: true,
      format: "esm",
      platform: "node",
      target: "node20",
      plugins: [fromSource],
      // A CommonJS dependency's require() of a Node module, inside an ES module.
      banner: { js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);' },
      logLevel: "error",
    });
    return { outfile, remove };
  } catch (error) {
    remove();
    throw error;
  }
}

/**
 * `npm run build` (and `prepack`): the package as it is published — JavaScript and type
 * declarations in dist/, compiled by tsc from the same sources the repository runs
 * (tsconfig.build.json), every relative import spelled `.js`. tsc rewrites the JavaScript's
 * imports (`rewriteRelativeImportExtensions`) but leaves the declarations' `.ts`, which a
 * consumer's TypeScript would not find in dist/; they are rewritten here.
 */
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = resolve(fileURLToPath(import.meta.url), "../..");
const DIST = join(ROOT, "dist");
const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");

rmSync(DIST, { recursive: true, force: true });
execFileSync(process.execPath, [tsc, "-p", join(ROOT, "tsconfig.build.json")], { stdio: "inherit" });

let rewritten = 0;
const walk = (dir) => {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path);
    else if (entry.name.endsWith(".d.ts")) {
      const text = readFileSync(path, "utf8");
      const fixed = text.replace(/(from\s+|import\()(["'])(\.{1,2}\/[^"']+)\.ts\2/g, (_m, lead, quote, spec) => `${lead}${quote}${spec}.js${quote}`);
      if (fixed !== text) {
        writeFileSync(path, fixed);
        rewritten++;
      }
    }
  }
};
walk(DIST);
console.log(`built dist/ (${rewritten} declaration files' imports spelled .js)`);

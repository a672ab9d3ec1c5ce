// @ts-check
/**
 * Writes a new project into a directory that is missing or empty (the caller checked:
 * targetProblem): the template files the runtimes chosen need, filled in (renderTemplate), and
 * the package.json and tsconfig.json made for them. Writes nothing else, reads nothing of the
 * user's, and never overwrites (each file is opened with the `wx` flag).
 */
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { projectPackage } from "./projectPackage.mjs";
import { projectTsconfig } from "./projectTsconfig.mjs";
import { renderTemplate } from "./renderTemplate.mjs";

const TEMPLATE = fileURLToPath(new URL("../template/", import.meta.url));

/**
 * Each template file, where it goes, and the runtimes that need it (none listed: every project).
 * `gitignore` has no dot in the package: npm pack leaves out files named .gitignore.
 * @type {readonly { from: string, to: string, for?: readonly import("./runtimes.mjs").Runtime[] }[]}
 */
const FILES = [
  { from: "src/server.ts", to: "src/server.ts" },
  { from: "src/server.test.ts", to: "src/server.test.ts" },
  { from: "src/worker.ts", to: "src/worker.ts", for: ["workers"] },
  { from: "wrangler.toml", to: "wrangler.toml", for: ["workers"] },
  { from: "src/node.ts", to: "src/node.ts", for: ["node"] },
  { from: "src/deno.ts", to: "src/deno.ts", for: ["deno"] },
  { from: "src/stdio.ts", to: "src/stdio.ts", for: ["stdio"] },
  { from: "gitignore", to: ".gitignore" },
  { from: "README.md", to: "README.md" },
];

/** Where `npm start` serves, by the runtime it starts. */
const STARTS_ON = {
  workers: "on http://127.0.0.1:8787 with wrangler dev (workerd, reloads on save)",
  node: "on http://127.0.0.1:8787 with Node",
  deno: "on http://127.0.0.1:8787 with Deno",
  stdio: "over stdin and stdout, for a desktop client",
};

const NAMES = { workers: "Cloudflare Workers", node: "Node", deno: "Deno", stdio: "stdio" };

/**
 * @example await writeProject("/home/me/my-server", { name: "my-server", runtimes: ["workers"], durableMcp: "^0.2.0" })
 * // ["src/server.ts", "src/server.test.ts", "src/worker.ts", "wrangler.toml", ".gitignore", "README.md", "package.json", "tsconfig.json"]
 * @param {string} directory  absolute; missing or empty
 * @param {object} project
 * @param {string} project.name
 * @param {import("./runtimes.mjs").Runtime[]} project.runtimes
 * @param {string} project.durableMcp  the dependency's spec: a range, or `file:` and a tarball's path
 * @returns {Promise<string[]>} the files written, relative to the directory
 */
export async function writeProject(directory, { name, runtimes, durableMcp }) {
  const pkg = projectPackage({ name, runtimes, durableMcp });
  const started = /** @type {const} */ (["workers", "node", "deno", "stdio"]).find((runtime) => runtimes.includes(runtime)) ?? "stdio";
  const values = {
    name,
    runtimes: runtimes.map((runtime) => NAMES[runtime]).join(", "),
    startsOn: STARTS_ON[started],
    startNode: pkg.scripts["start:node"] ? "npm run start:node" : "npm start",
    startDeno: pkg.scripts["start:deno"] ? "npm run start:deno" : "npm start",
  };
  /** @type {string[]} */
  const written = [];
  /** @param {string} to @param {string} text */
  const write = async (to, text) => {
    await mkdir(dirname(join(directory, to)), { recursive: true });
    await writeFile(join(directory, to), text, { flag: "wx" });
    written.push(to);
  };
  for (const file of FILES) {
    if (file.for && !file.for.some((runtime) => runtimes.includes(runtime))) continue;
    await write(file.to, renderTemplate(await readFile(join(TEMPLATE, file.from), "utf8"), { values, runtimes }));
  }
  await write("package.json", `${JSON.stringify(pkg, null, 2)}\n`);
  await write("tsconfig.json", `${JSON.stringify(projectTsconfig(runtimes), null, 2)}\n`);
  return written;
}

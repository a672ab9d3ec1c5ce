/**
 * A new project as create-durable-mcp writes it, for every choice of runtimes (15): the files
 * each runtime needs and no others, every placeholder and block filled in, the scripts the
 * README names present, the tools each runtime needs pinned. That a project so written installs,
 * tests, serves, deploys and type-checks is test/create/create.test.ts's part.
 */
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { projectName } from "../../../create/lib/projectName.mjs";
import { RUNTIMES, type Runtime } from "../../../create/lib/runtimes.mjs";
import { targetProblem } from "../../../create/lib/targetProblem.mjs";
import { VERSIONS } from "../../../create/lib/versions.mjs";
import { writeProject } from "../../../create/lib/writeProject.mjs";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "durable-mcp-write-project-"));
});
afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

/** Every non-empty subset of the runtimes. */
const CHOICES: Runtime[][] = Array.from({ length: 2 ** RUNTIMES.length - 1 }, (_, i) => RUNTIMES.filter((_, bit) => ((i + 1) >> bit) & 1));

/** Every file under a directory, relative to it, sorted. */
async function listFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => relative(root, join(entry.parentPath, entry.name))).sort();
}

describe("writeProject", () => {
  it.each(CHOICES.map((runtimes) => [runtimes.join(","), runtimes] as const))("writes a whole project for %s", async (label, runtimes) => {
    const project = join(dir, label.replaceAll(",", "-"));
    const has = (runtime: Runtime) => runtimes.includes(runtime);
    const written = await writeProject(project, { name: "my-server", runtimes, durableMcp: "^0.1.0" });

    const expected = ["src/server.ts", "src/server.test.ts", ".gitignore", "README.md", "package.json", "tsconfig.json"];
    if (has("workers")) expected.push("src/worker.ts", "wrangler.toml");
    for (const runtime of ["node", "deno", "stdio"] as const) if (has(runtime)) expected.push(`src/${runtime}.ts`);
    expect(written.slice().sort()).toEqual(expected.sort());
    expect(await listFiles(project)).toEqual(expected.sort());

    for (const file of written) {
      const text = await readFile(join(project, file), "utf8");
      expect(text, file).not.toMatch(/\{\{|<!-- (if|end)/);
    }

    const pkg = JSON.parse(await readFile(join(project, "package.json"), "utf8"));
    expect(pkg.dependencies).toEqual({ "durable-mcp": "^0.1.0", zod: VERSIONS.zod });
    expect(pkg.optionalDependencies).toEqual(has("node") ? { postgres: VERSIONS.postgres } : undefined);
    const tools = Object.keys(pkg.devDependencies);
    expect(tools.includes("wrangler")).toBe(has("workers"));
    expect(tools.includes("deno")).toBe(has("deno"));
    expect(tools.includes("esbuild")).toBe(has("node") || has("stdio"));
    expect(tools.includes("@types/node")).toBe(has("node") || has("stdio"));
    for (const tool of tools) expect(pkg.devDependencies[tool]).toBe(VERSIONS[tool as keyof typeof VERSIONS]);

    const readme = await readFile(join(project, "README.md"), "utf8");
    const commands = /```sh\n([^`]*)```/.exec(readme)?.[1] ?? "";
    expect(commands.split("\n").map((line) => line.replace(/\s+#.*/, ""))).toEqual(["npm install && npm start", "npm test", ""]);
    for (const [, script] of readme.matchAll(/npm run (?:--silent )?([\w:]+)/g)) expect(pkg.scripts[script!], `README names npm run ${script}`).toBeDefined();
    expect(pkg.scripts.start).toBeDefined();
    expect(pkg.scripts.typecheck).toBe(has("workers") ? "wrangler types && tsc --noEmit" : "tsc --noEmit");

    const { compilerOptions } = JSON.parse(await readFile(join(project, "tsconfig.json"), "utf8"));
    expect(compilerOptions.types.includes("./worker-configuration.d.ts")).toBe(has("workers"));
    expect(compilerOptions.types.includes("node")).toBe(has("node") || has("stdio"));
    // Node keeps its state in PostgreSQL when given one; the README says how, and that it is in memory otherwise.
    if (has("node")) expect(readme).toMatch(/in the process's memory and lost on restart[^]*--store postgres:\/\/[^]*DATABASE_URL/);
  });

  it("starts on Workers, else Node, else Deno, else over stdio; each other runtime has a script of its own", async () => {
    const scripts = async (runtimes: Runtime[]) => {
      const project = join(dir, `scripts-${runtimes.join("-")}`);
      await writeProject(project, { name: "s", runtimes, durableMcp: "^0.1.0" });
      return JSON.parse(await readFile(join(project, "package.json"), "utf8")).scripts as Record<string, string>;
    };
    const all = await scripts(["workers", "deno", "node", "stdio"]);
    expect(all.start).toMatch(/^wrangler dev --var "ALLOWED_HOSTS:localhost,127\.0\.0\.1,\[::1\]" --ip 127\.0\.0\.1$/);
    expect(all["start:node"]).toMatch(/^esbuild src\/node\.ts .* && node dist\/node\.mjs$/);
    expect(all["start:deno"]).toBe("deno run --allow-net --allow-env src/deno.ts");
    expect(all.stdio).toMatch(/^esbuild src\/stdio\.ts .* && node dist\/stdio\.mjs$/);
    expect(all.deploy).toBe("wrangler deploy --minify");
    const node = await scripts(["node", "deno"]);
    expect(node.start).toBe(all["start:node"]);
    expect(node["start:node"]).toBeUndefined();
    expect(node.deploy).toBeUndefined();
    expect((await scripts(["stdio"])).start).toBe(all.stdio);
  });

  it("minifies only what it deploys: wrangler.toml sets no minify (wrangler dev's stack traces name functions and lines), npm run deploy passes --minify", async () => {
    const project = join(dir, "minify");
    await writeProject(project, { name: "m", runtimes: ["workers"], durableMcp: "^0.1.0" });
    const settings = (await readFile(join(project, "wrangler.toml"), "utf8")).split("\n").filter((line) => /^\s*(minify|keep_names)\s*=/.test(line));
    expect(settings).toEqual(["keep_names = false"]);
    expect(JSON.parse(await readFile(join(project, "package.json"), "utf8")).scripts.deploy).toBe("wrangler deploy --minify");
    // The guide deploys with the script, so the upload is the minified one.
    expect(await readFile(join(project, "README.md"), "utf8")).toContain("npm run deploy");
  });

  it("never overwrites a file", async () => {
    const project = join(dir, "twice");
    await writeProject(project, { name: "twice", runtimes: ["node"], durableMcp: "^0.1.0" });
    await expect(writeProject(project, { name: "twice", runtimes: ["node"], durableMcp: "^0.1.0" })).rejects.toThrow(/EEXIST/);
  });
});

describe("targetProblem", () => {
  it("allows a missing or empty directory, and refuses anything else, naming what is there", async () => {
    expect(await targetProblem(join(dir, "not-yet"))).toBeUndefined();
    await writeProject(join(dir, "full"), { name: "full", runtimes: ["node"], durableMcp: "^0.1.0" });
    expect(await targetProblem(join(dir, "full"))).toMatch(/full is not empty \(.*package\.json.*\): choose a new directory, or empty this one\. Nothing was written\.$/);
    expect(await targetProblem(join(dir, "full", "package.json"))).toMatch(/package\.json exists and is not a directory/);
  });
});

describe("projectName", () => {
  it("is the directory's name as npm and Workers accept it", () => {
    expect(projectName("/home/me/My Weather_Server!")).toBe("my-weather-server");
    expect(projectName("a".repeat(80))).toHaveLength(63);
    expect(projectName("/tmp/---")).toBe("mcp-server");
  });
});

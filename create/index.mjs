#!/usr/bin/env node
// @ts-check
/**
 * `npm create durable-mcp` (this package's bin): reads the command line, asks for what it left
 * out, refuses a directory that is not empty, writes the project and says what to run next.
 * Every expected failure is one sentence on stderr and exit 1, never a stack trace.
 */
import { readFile } from "node:fs/promises";
import { relative, resolve } from "node:path";
import { createInterface } from "node:readline/promises";
import { askOptions } from "./lib/askOptions.mjs";
import { parseOptions } from "./lib/parseOptions.mjs";
import { projectName } from "./lib/projectName.mjs";
import { tarballProblem } from "./lib/tarballProblem.mjs";
import { targetProblem } from "./lib/targetProblem.mjs";
import { USAGE } from "./lib/usage.mjs";
import { writeProject } from "./lib/writeProject.mjs";

/** @param {string} message */
function fail(message) {
  console.error(`create-durable-mcp: ${message}`);
  process.exitCode = 1;
}

async function main() {
  const parsed = parseOptions(process.argv.slice(2));
  if (!parsed.ok) return fail(`${parsed.message}\nRun create-durable-mcp --help for the options.`);
  if (parsed.options.help) return void process.stdout.write(USAGE);

  const terminal = process.stdin.isTTY ? createInterface({ input: process.stdin, output: process.stdout }) : undefined;
  const asked = await askOptions(parsed.options, terminal && ((question) => terminal.question(question))).finally(() => terminal?.close());
  if (!asked.ok) return fail(asked.message);
  const { directory, runtimes, from } = asked.options;

  const target = resolve(directory);
  const tarball = from === undefined ? undefined : resolve(from);
  const problem = (await targetProblem(target)) ?? (tarball && (await tarballProblem(tarball)));
  if (problem) return fail(problem);

  const { version } = JSON.parse(await readFile(new URL("./package.json", import.meta.url), "utf8"));
  const name = projectName(target);
  const files = await writeProject(target, { name, runtimes, durableMcp: tarball ? `file:${tarball}` : `^${version}` });

  const cd = relative(process.cwd(), target) || ".";
  console.log(`Wrote ${name} (${runtimes.join(", ")}) in ${target}: ${files.join(", ")}.

Next:
  ${cd === "." ? "" : `cd ${cd.includes(" ") ? JSON.stringify(cd) : cd}\n  `}npm install && npm start
  npm test`);
}

main().catch((/** @type {unknown} */ error) => fail(error instanceof Error ? error.message : String(error)));

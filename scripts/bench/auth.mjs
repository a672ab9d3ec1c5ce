/**
 * `npm run bench:auth`: what a signed-in request costs on bare workerd, bearer against DPoP. The
 * same 2026-07-28 `tools/call` (toUpperCase) in three modes, interleaved in rounds:
 *
 * 1. anonymous floor: the example Worker, with no authorization. The authorization fixture cannot
 *    run without it (its `home: "user"` tools need a signed-in user), so the floor is the example's
 *    tools without the fixture's few extra ones, not the fixture itself;
 * 2. bearer: the authorization fixture (`test/fixtures/auth/authWorker.ts`, rate limits off) and
 *    one ES256 `at+jwt` access token per client, signed here with jose, reused across its calls;
 * 3. DPoP: the same fixture and a token bound to each client's key (`cnf.jkt`), with a fresh proof
 *    per call signed by the v2 client's `DpopSession`. A batch's proofs are signed just before it
 *    starts (a batch takes seconds, well inside the proofs' 60 s window), so that the client's
 *    signing is not timed as the server's throughput.
 *
 * Each mode has its own clients, each client one call at a time; the client runs on CPU 0 and both
 * servers on CPU 1 (`taskset`), as in `npm run bench`. Server CPU is read from the
 * kernel for the one workerd process serving the mode (`/proc/<pid>/task/<tid>/schedstat`); the
 * client (this process) is not counted. Every answer is checked: a refused or wrong answer ends
 * the run, so no figure is a measure of errors. One discarded warm-up round first; then modes
 * take turns each round, in a rotating order, so the drift of a shared machine falls on all
 * alike; ratios are taken within a round and printed as median (range) over the rounds.
 *
 * Bounded in count (`BENCH_AUTH_ROUNDS` rounds of `BENCH_AUTH_CALLS` calls per mode, over
 * `BENCH_AUTH_CLIENTS` clients) and in time (no round starts after `BENCH_AUTH_SECONDS`); binds
 * 127.0.0.1 only; stops only the workerd processes it started.
 *
 * @example npm run bench:auth        # about ten seconds
 */
import { DpopSession } from "@modelcontextprotocol/client";
import { exportJWK, generateKeyPair, SignJWT } from "jose";
import { execFileSync } from "node:child_process";
import { Agent } from "node:http";
import { startWorkerd } from "../startWorkerd.mjs";
import { answerOf, cpuNs, range } from "./measures.mjs";
import { postJson } from "./postJson.mjs";

const CALLS = Number(process.env.BENCH_AUTH_CALLS ?? 1_000);
const ROUNDS = Number(process.env.BENCH_AUTH_ROUNDS ?? 5);
const CLIENTS = Number(process.env.BENCH_AUTH_CLIENTS ?? 8);
/** No round starts after this many seconds of rounds: the run ends with those done. */
const MAX_SECONDS = Number(process.env.BENCH_AUTH_SECONDS ?? 240);
/**
 * The server remembers each accepted proof's `jti` for two minutes, at most this many per user and
 * in all (`capabilities/oauth/DpopReplayStore.ts`), and refuses past that: a plan that could send
 * more within two minutes would measure refusals, so it is refused before it starts.
 */
const REPLAY_BOUND_PER_USER = 1_500;
const REPLAY_BOUND_TOTAL = 50_000;
const ISSUER = "https://issuer.bench";
const TOKEN_LIFETIME = "1h";

for (const [name, value] of Object.entries({ BENCH_AUTH_CALLS: CALLS, BENCH_AUTH_ROUNDS: ROUNDS, BENCH_AUTH_CLIENTS: CLIENTS, BENCH_AUTH_SECONDS: MAX_SECONDS })) {
  if (!Number.isInteger(value) || value < 1) throw new TypeError(`${name} must be a positive integer, got ${value}`);
}
const PER_CLIENT = Math.ceil(CALLS / CLIENTS);
const proofsPlanned = (ROUNDS + 1) * PER_CLIENT;
if (proofsPlanned > REPLAY_BOUND_PER_USER || proofsPlanned * CLIENTS > REPLAY_BOUND_TOTAL) {
  throw new TypeError(
    `This plan sends ${proofsPlanned} DPoP proofs per client (${proofsPlanned * CLIENTS} in all), past what the server remembers within a proof's lifetime (${REPLAY_BOUND_PER_USER} per user, ${REPLAY_BOUND_TOTAL} in all): use more BENCH_AUTH_CLIENTS, fewer BENCH_AUTH_CALLS or fewer BENCH_AUTH_ROUNDS`,
  );
}

const agent = new Agent({ keepAlive: true, maxSockets: 256 });
const MODERN_META = { "io.modelcontextprotocol/protocolVersion": "2026-07-28", "io.modelcontextprotocol/clientCapabilities": {} };
const CALL_HEADERS = { accept: "application/json, text/event-stream", "mcp-protocol-version": "2026-07-28", "mcp-method": "tools/call", "mcp-name": "toUpperCase" };
const callBody = (id) => JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "toUpperCase", arguments: { input: "bench" }, _meta: MODERN_META } });

/** Ends the run unless `response` is the tool's answer to call `id`. */
function expectAnswer(mode, response, id) {
  const answer = response.status === 200 ? answerOf(response.text, id) : undefined;
  if (answer?.result?.content?.[0]?.text !== "BENCH" || answer.result.isError) {
    throw new Error(`${mode}: tools/call ${id} answered ${response.status} ${response.headers["www-authenticate"] ?? ""} ${response.text.slice(0, 300)}`);
  }
}

console.log(`durable-mcp auth benchmark — node ${process.version}, ${new Date().toISOString()}`);
console.log(`   ${ROUNDS} rounds of ${PER_CLIENT * CLIENTS} calls per mode over ${CLIENTS} clients, after one warm-up round`);

const keys = await generateKeyPair("ES256", { extractable: true });
const jwks = JSON.stringify({ keys: [{ ...(await exportJWK(keys.publicKey)), kid: "bench", alg: "ES256" }] });
// The client on CPU 0, both servers on CPU 1: the client's work (its signing included) does not
// take the servers' CPU, and calls/s is the server's rate, as in `npm run bench`.
execFileSync("taskset", ["-a", "-p", "-c", "0", String(process.pid)], { stdio: "ignore" });
const servers = [];
try {
  const floorServer = await startWorkerd({ entry: "example/worker.ts", vars: { LOG_LEVEL: "error" }, cpu: 1 });
  servers.push(floorServer);
  const authServer = await startWorkerd({ entry: "test/fixtures/auth/authWorker.ts", vars: { LOG_LEVEL: "error", JWT_ISSUER: ISSUER, JWT_KEYS: jwks }, cpu: 1 });
  servers.push(authServer);
  const mcp = `${authServer.url}/mcp`;
  const token = (subject, claims = {}) =>
    new SignJWT({ scope: "mcp", ...claims }).setProtectedHeader({ alg: "ES256", kid: "bench", typ: "at+jwt" }).setIssuer(ISSUER).setSubject(subject).setAudience(mcp).setIssuedAt().setExpirationTime(TOKEN_LIFETIME).sign(keys.privateKey);

  const bearerTokens = await Promise.all(Array.from({ length: CLIENTS }, (_, c) => token(`bearer-${c}`)));
  const dpopClients = await Promise.all(
    Array.from({ length: CLIENTS }, async (_, c) => {
      const session = await DpopSession.create();
      return { session, token: await token(`dpop-${c}`, { cnf: { jkt: session.thumbprint } }) };
    }),
  );

  /** A mode: its server's process, and `prepare(round)` → one list of call functions per client. */
  const modes = [
    {
      name: "anonymous floor",
      pid: floorServer.pid,
      prepare: (ids) => ids.map((own) => own.map((id) => () => postJson(agent, `${floorServer.url}/mcp`, CALL_HEADERS, callBody(id)))),
    },
    {
      name: "bearer",
      pid: authServer.pid,
      prepare: (ids) => ids.map((own, c) => own.map((id) => () => postJson(agent, mcp, { ...CALL_HEADERS, authorization: `Bearer ${bearerTokens[c]}` }, callBody(id)))),
    },
    {
      name: "DPoP",
      pid: authServer.pid,
      prepare: (ids) =>
        Promise.all(
          ids.map(async (own, c) => {
            const { session, token: bound } = dpopClients[c];
            const proofs = await Promise.all(own.map(() => session.buildProof({ htm: "POST", htu: mcp, accessToken: bound })));
            return own.map((id, i) => () => postJson(agent, mcp, { ...CALL_HEADERS, authorization: `DPoP ${bound}`, dpop: proofs[i] }, callBody(id)));
          }),
        ),
    },
  ];

  let nextId = 0;
  /** One batch of a mode: every client's calls, each client one at a time; its seconds and server CPU. */
  async function batch(mode) {
    const ids = Array.from({ length: CLIENTS }, () => Array.from({ length: PER_CLIENT }, () => ++nextId));
    const calls = await mode.prepare(ids);
    const cpuBefore = cpuNs(mode.pid);
    const started = performance.now();
    await Promise.all(
      calls.map(async (own, c) => {
        for (let i = 0; i < own.length; i++) expectAnswer(mode.name, await own[i](), ids[c][i]);
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const count = CLIENTS * PER_CLIENT;
    return { perSecond: count / seconds, cpuUs: (cpuNs(mode.pid) - cpuBefore) / 1000 / count };
  }

  for (const mode of modes) await batch(mode);
  const rounds = [];
  const started = performance.now();
  for (let round = 0; round < ROUNDS; round++) {
    if ((performance.now() - started) / 1000 > MAX_SECONDS) {
      console.log(`   stopped after ${round} rounds: the time bound (${MAX_SECONDS} s) was reached`);
      break;
    }
    const figures = {};
    // A rotating order: no mode always runs first (or just after another) in a round.
    for (let i = 0; i < modes.length; i++) {
      const mode = modes[(round + i) % modes.length];
      figures[mode.name] = await batch(mode);
    }
    rounds.push(figures);
  }

  const pad = (s, n) => String(s).padEnd(n);
  const column = (values, digits) => range(values, digits).padEnd(22);
  console.log(`\n   ${pad("mode", 18)}${pad("calls/s", 22)}${pad("server CPU µs/call", 22)}`);
  for (const mode of modes) {
    console.log(`   ${pad(mode.name, 18)}${column(rounds.map((r) => r[mode.name].perSecond), 0)}${column(rounds.map((r) => r[mode.name].cpuUs), 0)}`);
  }
  console.log(`\n   ${pad("ratio, per round", 18)}${pad("calls/s", 22)}${pad("server CPU/call", 22)}`);
  for (const [over, under] of [
    ["bearer", "anonymous floor"],
    ["DPoP", "bearer"],
    ["DPoP", "anonymous floor"],
  ]) {
    const ratios = (key) => rounds.map((r) => r[over][key] / r[under][key]);
    console.log(`   ${pad(`${over} ÷ ${under === "anonymous floor" ? "floor" : under}`, 18)}${column(ratios("perSecond"), 2)}${column(ratios("cpuUs"), 2)}`);
  }
  console.log("   median (range) over the rounds; the floor is the example Worker without authorization");
} finally {
  agent.destroy();
  for (const server of servers) await server.dispose();
}

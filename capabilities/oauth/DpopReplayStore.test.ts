import { describe, expect, it } from "vitest";
import { PROOF_LIFETIME_MS } from "./checkDpopProof.ts";
import { DpopReplayStore, MAX_PROOFS_PER_PRINCIPAL, MAX_PROOFS_TOTAL } from "./DpopReplayStore.ts";
import { DEFAULT_RATE_LIMITS } from "./OAuthGatekeeper.ts";

const LIFETIME_MS = 120_000;

function store(options: { maxPerPrincipal?: number; maxTotal?: number } = {}) {
  const clock = { now: 1_000_000 };
  return { clock, replays: new DpopReplayStore({ lifetimeMs: LIFETIME_MS, now: () => clock.now, ...options }) };
}

describe("DpopReplayStore", () => {
  it("takes a jti once per principal, within its window", () => {
    const { replays } = store();
    expect(replays.use("alice", "j1")).toEqual({ ok: true });
    expect(replays.use("alice", "j1")).toEqual({ ok: false, replayed: true });
    // Another principal's proof with the same jti is its own.
    expect(replays.use("bob", "j1")).toEqual({ ok: true });
  });

  it("forgets a jti once its window has ended, not before", () => {
    const { clock, replays } = store();
    replays.use("alice", "j1");
    clock.now += LIFETIME_MS - 1;
    expect(replays.use("alice", "j1")).toEqual({ ok: false, replayed: true });
    clock.now += 1;
    expect(replays.use("alice", "j1")).toEqual({ ok: true });
  });

  it("refuses a principal past its bound, saying when the oldest frees, without evicting it; others go on", () => {
    const { clock, replays } = store({ maxPerPrincipal: 3 });
    for (const jti of ["a", "b", "c"]) expect(replays.use("alice", jti).ok).toBe(true);
    clock.now += 30_000;
    expect(replays.use("alice", "d")).toEqual({ ok: false, replayed: false, whose: "principal", retryAfterSeconds: 90 });
    // Nothing was dropped to make room: the first proof is still refused as a replay.
    expect(replays.use("alice", "a")).toEqual({ ok: false, replayed: true });
    expect(replays.use("bob", "a")).toEqual({ ok: true });
    clock.now += 90_000;
    expect(replays.use("alice", "d")).toEqual({ ok: true });
    // Alice's three freed; bob's, recorded later, is still in its window.
    expect(replays.size).toBe(2);
  });

  it("refuses everyone past the total bound, until entries free", () => {
    const { clock, replays } = store({ maxTotal: 4 });
    for (const who of ["a", "b", "c", "d"]) expect(replays.use(who, "j").ok).toBe(true);
    expect(replays.use("e", "j")).toEqual({ ok: false, replayed: false, whose: "server", retryAfterSeconds: 120 });
    expect(replays.size).toBe(4);
    clock.now += LIFETIME_MS;
    expect(replays.use("e", "j")).toEqual({ ok: true });
    expect(replays.size).toBe(1);
  });

  it("keeps a principal and a jti apart, whatever characters they hold", () => {
    const { replays } = store();
    expect(replays.use("a\nb", "c").ok).toBe(true);
    expect(replays.use("a", "b\nc").ok).toBe(true);
  });

  it("has room for every proof a user within the default rate limit can send in a proof's lifetime", () => {
    const { limit, periodSeconds } = DEFAULT_RATE_LIMITS.perPrincipal as { limit: number; periodSeconds: number };
    expect(MAX_PROOFS_PER_PRINCIPAL).toBeGreaterThanOrEqual(Math.ceil((limit * PROOF_LIFETIME_MS) / (periodSeconds * 1000)));
  });

  it("has defaults a principal's rate limit cannot exhaust alone", () => {
    expect(MAX_PROOFS_PER_PRINCIPAL).toBeLessThan(MAX_PROOFS_TOTAL);
    const { replays } = store();
    for (let i = 0; i < MAX_PROOFS_PER_PRINCIPAL; i++) replays.use("alice", String(i));
    expect(replays.use("alice", "one more")).toMatchObject({ ok: false, whose: "principal" });
  });
});

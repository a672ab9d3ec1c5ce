import { describe, expect, it } from "vitest";
import { ClientRequestError, ClientRequests } from "./ClientRequests.ts";

const live = () => new AbortController();

describe("ClientRequests", () => {
  it("resolves a waiter with the client's result, matched by id", async () => {
    const requests = new ClientRequests(1_000);
    const a = requests.open("roots/list", live().signal);
    const b = requests.open("sampling/createMessage", live().signal);
    expect(a.id).not.toBe(b.id);
    expect(requests.settle({ jsonrpc: "2.0", id: b.id, result: { model: "m" } })).toBe(true);
    expect(requests.settle({ jsonrpc: "2.0", id: a.id, result: { roots: [] } })).toBe(true);
    expect(await a.result).toEqual({ roots: [] });
    expect(await b.result).toEqual({ model: "m" });
    expect(requests.pending).toBe(0);
  });

  it("rejects with a ClientRequestError carrying the client's error", async () => {
    const requests = new ClientRequests(1_000);
    const { id, result } = requests.open("elicitation/create", live().signal);
    requests.settle({ jsonrpc: "2.0", id, error: { code: -1, message: "User rejected" } });
    const error = await result.catch((e) => e);
    expect(error).toBeInstanceOf(ClientRequestError);
    expect(error.code).toBe(-1);
    expect(error.message).toBe("The client answered elicitation/create with error -1: User rejected");
  });

  it("rejects after the deadline, and ignores a late answer", async () => {
    const requests = new ClientRequests(20);
    const { id, result } = requests.open("roots/list", live().signal);
    await expect(result).rejects.toThrow("The client did not answer roots/list within 20 ms");
    expect(requests.settle({ jsonrpc: "2.0", id, result: {} })).toBe(false);
  });

  it("rejects with the abort reason when the handler is aborted, before or while waiting", async () => {
    const requests = new ClientRequests(1_000);
    const controller = live();
    const { result } = requests.open("roots/list", controller.signal);
    controller.abort(new Error("cancelled"));
    await expect(result).rejects.toThrow("cancelled");
    const gone = new AbortController();
    gone.abort(new Error("already"));
    await expect(requests.open("roots/list", gone.signal).result).rejects.toThrow("already");
    expect(requests.pending).toBe(0);
  });

  it("answers false for unknown ids and null ids", () => {
    const requests = new ClientRequests(1_000);
    expect(requests.settle({ jsonrpc: "2.0", id: "nobody", result: {} })).toBe(false);
    expect(requests.settle({ jsonrpc: "2.0", id: null, error: { code: 1, message: "x" } })).toBe(false);
  });

  it("never reuses ids across instances (an answer meant for an evicted instance cannot match)", () => {
    const ids = new Set(Array.from({ length: 50 }, () => new ClientRequests(1).open("ping", live().signal)).map((r) => (r.result.catch(() => {}), r.id)));
    expect(ids.size).toBe(50);
  });
});

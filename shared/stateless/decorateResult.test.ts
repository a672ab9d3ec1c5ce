import { describe, expect, it } from "vitest";
import { META } from "../protocol/metaKeys.ts";
import { decorateResult } from "./decorateResult.ts";
import { CompiledServer } from "../server/CompiledServer.ts";

const CACHEABLE = ["server/discover", "tools/list", "prompts/list", "resources/list", "resources/templates/list", "resources/read"];
const server = new CompiledServer({ name: "decorated", version: "2.0.0", title: "Decorated" });
const SERVER_INFO = { name: "decorated", version: "2.0.0", title: "Decorated" };

describe("decorateResult", () => {
  it("marks a result complete and names the server in _meta", () => {
    expect(decorateResult("tools/call", { content: [] }, server)).toEqual({
      content: [],
      resultType: "complete",
      _meta: { [META.serverInfo]: SERVER_INFO },
    });
  });

  it("keeps a resultType the result already has, and adds no caching hints to it", () => {
    const interim = decorateResult("tools/list", { resultType: "input_required", inputRequests: {} }, server);
    expect(interim.resultType).toBe("input_required");
    expect(interim).not.toHaveProperty("ttlMs");
    expect(interim).not.toHaveProperty("cacheScope");
  });

  it("merges serverInfo into the result's own _meta", () => {
    const decorated = decorateResult("tools/call", { content: [], _meta: { "example.test/trace": "t-1", progressToken: 3 } }, server);
    expect(decorated._meta).toEqual({ "example.test/trace": "t-1", progressToken: 3, [META.serverInfo]: SERVER_INFO });
  });

  it("replaces a _meta that is not an object", () => {
    expect(decorateResult("ping", { _meta: "junk" }, server)._meta).toEqual({ [META.serverInfo]: SERVER_INFO });
    expect(decorateResult("ping", { _meta: null }, server)._meta).toEqual({ [META.serverInfo]: SERVER_INFO });
  });

  it("does not change the result it was given", () => {
    const result = { content: [], _meta: { a: 1 } };
    decorateResult("resources/read", result, server);
    expect(result).toEqual({ content: [], _meta: { a: 1 } });
  });

  it("gives the six cacheable methods the default hint: stale at once, private", () => {
    for (const method of CACHEABLE) {
      const decorated = decorateResult(method, {}, server);
      expect(decorated.ttlMs, method).toBe(0);
      expect(decorated.cacheScope, method).toBe("private");
    }
  });

  it("gives no caching hints to other methods", () => {
    for (const method of ["tools/call", "prompts/get", "completion/complete", "ping", "logging/setLevel", "subscriptions/listen"]) {
      const decorated = decorateResult(method, {}, server);
      expect(decorated, method).not.toHaveProperty("ttlMs");
      expect(decorated, method).not.toHaveProperty("cacheScope");
    }
  });

  it("uses the hints configured per method and the default for the rest", () => {
    const cached = new CompiledServer({
      name: "cached",
      version: "1",
      caching: { "tools/list": { ttlMs: 300_000, cacheScope: "public" }, "resources/read": { ttlMs: 5_000, cacheScope: "private" } },
    });
    expect(decorateResult("tools/list", {}, cached)).toMatchObject({ ttlMs: 300_000, cacheScope: "public" });
    expect(decorateResult("resources/read", {}, cached)).toMatchObject({ ttlMs: 5_000, cacheScope: "private" });
    expect(decorateResult("prompts/list", {}, cached)).toMatchObject({ ttlMs: 0, cacheScope: "private" });
    expect(decorateResult("tools/call", {}, cached)).not.toHaveProperty("ttlMs");
  });

  it("keeps hints the result already carries", () => {
    const cached = new CompiledServer({ name: "cached", version: "1", caching: { "resources/read": { ttlMs: 5_000, cacheScope: "public" } } });
    expect(decorateResult("resources/read", { ttlMs: 10, cacheScope: "private" }, cached)).toMatchObject({ ttlMs: 10, cacheScope: "private" });
    expect(decorateResult("resources/read", { ttlMs: 10 }, cached)).toMatchObject({ ttlMs: 10, cacheScope: "public" });
  });

  it("decorates server/discover into a complete, cacheable result", () => {
    const cached = new CompiledServer({ name: "d", version: "1", instructions: "Be brief.", caching: { "server/discover": { ttlMs: 60_000, cacheScope: "public" } } });
    expect(decorateResult("server/discover", cached.discover(), cached)).toEqual({
      supportedVersions: ["2026-07-28"],
      capabilities: { logging: {} },
      instructions: "Be brief.",
      resultType: "complete",
      ttlMs: 60_000,
      cacheScope: "public",
      _meta: { [META.serverInfo]: { name: "d", version: "1" } },
    });
  });
});

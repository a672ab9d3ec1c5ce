import { describe, expect, it } from "vitest";
import { workerAddress } from "../../worker/workerAddress.ts";

/** A request as workerd hands it to a Worker: `cf` is workerd's, set by the platform, not by `new Request`. */
const arriving = (cf: Record<string, unknown> | undefined, headers: Record<string, string> = {}) => Object.assign(new Request("http://127.0.0.1/mcp", { headers }), { cf });

describe("workerAddress", () => {
  it("is CF-Connecting-IP where the edge's cf properties came with the request", () => {
    expect(workerAddress(arriving({ colo: "DFW", country: "US" }, { "cf-connecting-ip": "203.0.113.7" }))).toBe("203.0.113.7");
  });

  it("is workerd's own peer, port stripped, on self-hosted workerd, whatever CF-Connecting-IP claims", () => {
    expect(workerAddress(arriving({ clientIp: "127.0.0.2:51234" }, { "cf-connecting-ip": "198.51.100.1" }))).toBe("127.0.0.2");
    expect(workerAddress(arriving({ clientIp: "[2001:db8::5]:443" }, { "cf-connecting-ip": "198.51.100.1" }))).toBe("2001:db8::5");
  });

  it("is nothing for a request without cf properties, whatever it claims", () => {
    expect(workerAddress(arriving(undefined, { "cf-connecting-ip": "198.51.100.1" }))).toBeUndefined();
  });
});

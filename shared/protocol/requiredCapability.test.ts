import { describe, expect, it } from "vitest";
import { describeMissing, requiredCapability } from "./requiredCapability.ts";

const url = { mode: "url", url: "https://example.test/login", message: "Sign in", elicitationId: "e1" };
const form = { message: "Your name?", requestedSchema: { type: "object", properties: {} } };

describe("requiredCapability", () => {
  it("needs sampling for sampling/createMessage", () => {
    expect(requiredCapability("sampling/createMessage", {}, { sampling: {} })).toBeUndefined();
    expect(requiredCapability("sampling/createMessage", {}, { roots: {}, elicitation: {} })).toEqual({ sampling: {} });
    expect(requiredCapability("sampling/createMessage", {}, undefined)).toEqual({ sampling: {} });
  });

  it("needs roots for roots/list", () => {
    expect(requiredCapability("roots/list", {}, { roots: { listChanged: true } })).toBeUndefined();
    expect(requiredCapability("roots/list", {}, { sampling: {} })).toEqual({ roots: {} });
    expect(requiredCapability("roots/list", {}, undefined)).toEqual({ roots: {} });
  });

  it("lets elicitation: {} serve form mode only", () => {
    expect(requiredCapability("elicitation/create", form, { elicitation: {} })).toBeUndefined();
    expect(requiredCapability("elicitation/create", { ...form, mode: "form" }, { elicitation: {} })).toBeUndefined();
    expect(requiredCapability("elicitation/create", url, { elicitation: {} })).toEqual({ elicitation: { url: {} } });
  });

  it("lets declared modes serve exactly those modes", () => {
    expect(requiredCapability("elicitation/create", form, { elicitation: { form: {} } })).toBeUndefined();
    expect(requiredCapability("elicitation/create", url, { elicitation: { form: {} } })).toEqual({ elicitation: { url: {} } });
    expect(requiredCapability("elicitation/create", url, { elicitation: { url: {} } })).toBeUndefined();
    expect(requiredCapability("elicitation/create", form, { elicitation: { url: {} } })).toEqual({ elicitation: { form: {} } });
    expect(requiredCapability("elicitation/create", form, { elicitation: { form: {}, url: {} } })).toBeUndefined();
    expect(requiredCapability("elicitation/create", url, { elicitation: { form: {}, url: {} } })).toBeUndefined();
  });

  it("asks for elicitation in the mode needed when none is declared", () => {
    expect(requiredCapability("elicitation/create", form, {})).toEqual({ elicitation: {} });
    expect(requiredCapability("elicitation/create", form, undefined)).toEqual({ elicitation: {} });
    expect(requiredCapability("elicitation/create", url, { sampling: {} })).toEqual({ elicitation: { url: {} } });
    expect(requiredCapability("elicitation/create", form, { elicitation: null })).toEqual({ elicitation: {} });
    expect(requiredCapability("elicitation/create", url, { elicitation: true })).toEqual({ elicitation: { url: {} } });
  });

  it("throws a TypeError for a method a server does not send to a client", () => {
    for (const method of ["tools/call", "resources/read", "sampling/create", ""]) {
      expect(() => requiredCapability(method, {}, { sampling: {}, roots: {}, elicitation: {} }), method).toThrow(TypeError);
    }
    expect(() => requiredCapability("tools/call", {}, {})).toThrow("tools/call is not a request a server sends to a client");
  });
});

describe("describeMissing", () => {
  it("names the method and the missing capability", () => {
    expect(describeMissing("roots/list", { roots: {} })).toBe('The client did not declare the capability {"roots":{}}, so roots/list cannot be sent');
  });
});

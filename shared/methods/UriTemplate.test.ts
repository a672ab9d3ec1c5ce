import { describe, it, expect } from "vitest";
import { UriTemplate } from "./UriTemplate.ts";

describe("UriTemplate.match", () => {
  it("recovers a variable between literals", () => {
    expect(new UriTemplate("test://template/{id}/data").match("test://template/123/data")).toEqual({ id: "123" });
  });

  it("recovers several variables in order", () => {
    const t = new UriTemplate("repo://{owner}/{name}/blob/{ref}");
    expect(t.variables).toEqual(["owner", "name", "ref"]);
    expect(t.match("repo://acme/app/blob/main")).toEqual({ owner: "acme", name: "app", ref: "main" });
  });

  it.each([
    ["a slash inside a variable", "test://template/1/2/data"],
    ["an empty variable", "test://template//data"],
    ["a different literal", "test://template/123/meta"],
    ["a trailing extra", "test://template/123/data/x"],
    ["a leading extra", "xtest://template/123/data"],
    ["a query inside a variable", "test://template/1?x/data"],
    ["a fragment inside a variable", "test://template/1#x/data"],
  ])("does not match %s", (_name, uri) => {
    expect(new UriTemplate("test://template/{id}/data").match(uri)).toBeUndefined();
  });

  it("percent-decodes values, including an encoded slash", () => {
    const t = new UriTemplate("notes://{folder}/{id}");
    expect(t.match("notes://my%20work/a%2Fb%C3%A9")).toEqual({ folder: "my work", id: "a/bé" });
  });

  it("does not match a value with malformed percent-encoding", () => {
    expect(new UriTemplate("notes://{id}").match("notes://%E0%A4%A")).toBeUndefined();
  });

  it("treats regular-expression characters in literals literally", () => {
    const t = new UriTemplate("a+b://x.y/(z)/{id}?q=*");
    expect(t.match("a+b://x.y/(z)/7?q=*")).toEqual({ id: "7" });
    expect(t.match("aab://xzy/(z)/7?q=*")).toBeUndefined();
  });

  it("matches a template without variables only exactly", () => {
    const t = new UriTemplate("config://app");
    expect(t.match("config://app")).toEqual({});
    expect(t.match("config://apps")).toBeUndefined();
  });

  it("takes as much as it can for the earlier variable when a literal repeats", () => {
    expect(new UriTemplate("users://{org}-{id}").match("users://a-b-c")).toEqual({ org: "a-b", id: "c" });
    expect(new UriTemplate("x://{a}{b}").match("x://abc")).toEqual({ a: "ab", b: "c" });
    expect(new UriTemplate("x://{a}-{b}/{c}-{d}").match("x://p-q-r/s-t-u")).toEqual({ a: "p-q", b: "r", c: "s-t", d: "u" });
  });

  it("splits as a backtracking regular expression would, on 3,000 small seeded cases", () => {
    // Seeded, so a failure repeats: templates and URIs over a tiny alphabet hit every ambiguity.
    let seed = 7;
    const next = (n: number) => ((seed = (seed * 48_271) % 2_147_483_647), seed % n); // Park–Miller: exact in doubles
    const pick = (alphabet: string, max: number) => Array.from({ length: next(max + 1) }, () => alphabet[next(alphabet.length)]).join("");
    for (let round = 0; round < 3_000; round++) {
      const names = ["a", "b", "c"].slice(0, 1 + next(3));
      const template = `x://${names.map((name) => `${pick("-/.?", 2)}{${name}}`).join("")}${pick("-/.?", 2)}`;
      // Mostly the template filled in with values that may hold literals or delimiters, sometimes anything.
      const uri = round % 4 === 0 ? `x://${pick("p-/.?", 9)}` : template.replace(/\{[a-c]\}/g, () => pick("p-/.", 3));
      const literals = template.slice(4).split(/\{[a-c]\}/).map((l) => l.replace(/[.?/]/g, "\\$&"));
      const found = new RegExp(`^x://${literals.join("([^/?#]+)")}$`).exec(uri);
      const expected = found ? Object.fromEntries(names.map((name, i) => [name, found[i + 1]])) : undefined;
      expect(new UriTemplate(template).match(uri), `${template} against ${uri}`).toEqual(expected);
    }
  });

  it("refuses an adversarial URI without backtracking", () => {
    // 400 KB of "a-" with no way to end: the old regular expression tried every split, for over half a minute.
    const repeats = 200_000;
    const t = new UriTemplate("users://{org}-{id}");
    expect(t.match(`users://${"a-".repeat(repeats)}/`)).toBeUndefined();
    const vars = t.match(`users://${"a-".repeat(repeats)}b`);
    expect(vars?.org).toHaveLength(2 * repeats - 1);
    expect(vars?.id).toBe("b");
  }, 20_000);

  it("keeps a variable named __proto__ as an own field", () => {
    const vars = new UriTemplate("x://{__proto__}").match("x://v");
    expect(Object.hasOwn(vars!, "__proto__")).toBe(true);
    expect(Object.getPrototypeOf(vars)).toBe(Object.prototype);
  });
});

describe("UriTemplate.expand", () => {
  it("percent-encodes everything but unreserved characters (RFC 6570 §3.2.2)", () => {
    const t = new UriTemplate("notes://{folder}/{id}");
    expect(t.expand({ folder: "my work", id: "a/b!*'()é~._-" })).toBe("notes://my%20work/a%2Fb%21%2A%27%28%29%C3%A9~._-");
  });

  it("round-trips through match", () => {
    const t = new UriTemplate("notes://{folder}/{id}");
    const vars = { folder: "a?b#c", id: "100%" };
    expect(t.match(t.expand(vars))).toEqual(vars);
  });
});

describe("UriTemplate construction", () => {
  it.each(["file:///{+path}", "x://{#frag}", "x://{/seg}", "x://y{?q}", "x://{a,b}", "x://{list*}", "x://{var:3}", "x://{}", "x://{a b}"])(
    "refuses %s as beyond level 1",
    (template) => {
      expect(() => new UriTemplate(template)).toThrow(/only RFC 6570 level 1/);
    },
  );

  it.each(["x://{id", "x://id}", "x://{{id}}"])("refuses the unbalanced %s", (template) => {
    expect(() => new UriTemplate(template)).toThrow(TypeError);
  });

  it("refuses a variable used twice", () => {
    expect(() => new UriTemplate("x://{id}/{id}")).toThrow("uses {id} twice");
  });

  it("accepts dotted and percent-encoded variable names", () => {
    expect(new UriTemplate("x://{a.b}/{c%20d}").variables).toEqual(["a.b", "c%20d"]);
  });
});

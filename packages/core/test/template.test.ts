import { describe, expect, it } from "vitest";
import { renderTemplate, templateVariables } from "../src/index.ts";

describe("templates", () => {
  it("finds each variable once, in order", () => {
    expect(templateVariables("{{a}} {{ b }} {{a}} {{not valid}} {{c.d}}")).toEqual([
      "a",
      "b",
      "c.d",
    ]);
  });

  it("renders in one pass without re-expanding values", () => {
    expect(renderTemplate("Hi {{name}}, {{ x }}!", { name: "{{x}}", x: "y" })).toBe("Hi {{x}}, y!");
  });

  it("leaves unknown variables and prototype names alone", () => {
    expect(renderTemplate("{{toString}} {{missing}}", {})).toBe("{{toString}} {{missing}}");
  });
});

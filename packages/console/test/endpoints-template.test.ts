import { describe, expect, it } from "vitest";
import { classifyVariables, variablesOf } from "../src/pages/endpoints/template-variables.ts";

describe("template variables", () => {
  it("finds {{variables}} in the service's grammar, once each, in order", () => {
    expect(
      variablesOf(["{{ topic }} and {{topic}}", "{{a.b-c_1}} {{ 1bad }} {{not a var}}"]),
    ).toEqual(["topic", "a.b-c_1"]);
  });

  it("tells the caller's values from search and built-in variables", () => {
    expect(
      classifyVariables(
        ["Context: {{context}}\nQ: {{question}} ({{last_user_message}})"],
        ["context", "stale"],
      ),
    ).toEqual({
      values: ["question"],
      search: ["context"],
      builtin: ["last_user_message"],
      unusedSearch: ["stale"],
    });
  });
});

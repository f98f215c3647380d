import { isBuiltinVariable, LAST_USER_MESSAGE } from "./builtin-variables.ts";
import { templateVariables } from "./template.ts";

/** What of an endpoint's configuration uses variables. */
export interface VariableSource {
  prompt: string | null;
  messages: readonly { content: string }[] | null;
  search: readonly { variable: string; query: string }[];
}

/**
 * Every variable a request must give a value, in order of first use: the template's, minus
 * those a search block fills, then the search queries' (rendered before any search runs).
 * Built-in variables (`last_user_message`) are included; `valueVariables` leaves them out.
 */
export function requestVariables(source: VariableSource): string[] {
  const filled = new Set(source.search.map((s) => s.variable));
  const templates =
    source.prompt !== null ? [source.prompt] : (source.messages ?? []).map((m) => m.content);
  const needed = [
    ...templates.flatMap(templateVariables).filter((v) => !filled.has(v)),
    ...source.search.flatMap((s) => templateVariables(s.query)),
  ];
  return [...new Set(needed)];
}

/** The variables the caller fills in `values`: the request's, without the built-in ones. */
export function valueVariables(source: VariableSource): string[] {
  return requestVariables(source).filter((v) => !isBuiltinVariable(v));
}

/**
 * Checks a request's values (the caller's and the built-in ones) against what the endpoint
 * uses. Returns nothing when every variable has a value; otherwise the message of the 400 and
 * the field it names. The message names the missing variables and, beside them, the `values`
 * keys no variable uses (a misspelt name shows on both sides). Unused keys alone are not an
 * error: a caller that still sends a variable a newer deployment dropped keeps working.
 */
export function checkRequestValues(
  source: VariableSource,
  values: Record<string, string>,
  givenKeys: readonly string[],
): { message: string; field: string } | undefined {
  const used = requestVariables(source);
  const missing = used.filter((v) => !Object.hasOwn(values, v));
  if (missing.length === 0) return undefined;
  const parts: string[] = [];
  const missingValues = missing.filter((v) => !isBuiltinVariable(v));
  if (missingValues.length > 0) {
    parts.push(`missing ${plural(missingValues, "variable")} ${missingValues.join(", ")}`);
  }
  if (missing.includes(LAST_USER_MESSAGE)) {
    parts.push(`{{${LAST_USER_MESSAGE}}} needs a user message in the request (messages or prompt)`);
  }
  const usedSet = new Set(used);
  const unused = givenKeys.filter((k) => !usedSet.has(k));
  if (unused.length > 0) {
    const expected = valueVariables(source);
    parts.push(
      `${plural(unused, "value")} ${listNames(unused)} ${unused.length === 1 ? "is" : "are"} not used by the template (${
        expected.length > 0
          ? `its variables: ${expected.join(", ")}`
          : "it has no variables to fill"
      })`,
    );
  }
  return { message: parts.join("; "), field: missingValues.length > 0 ? "values" : "messages" };
}

/** The caller's key names, bounded: at most 20, each cut at 64 characters. */
function listNames(names: readonly string[]): string {
  const MAX_NAMES = 20;
  const MAX_CHARS = 64;
  const shown = names
    .slice(0, MAX_NAMES)
    .map((n) => (n.length > MAX_CHARS ? `${n.slice(0, MAX_CHARS)}…` : n));
  const more = names.length - shown.length;
  return more > 0 ? `${shown.join(", ")} and ${more} more` : shown.join(", ");
}

function plural(items: readonly string[], word: string): string {
  return items.length === 1 ? word : `${word}s`;
}

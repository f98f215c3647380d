/**
 * The editor shows a template's variables while it is typed (docs/api.md#templates), before
 * the API answers with the endpoint's `variables`. Same grammar as the service's
 * (`packages/core/src/templates/template.ts`): identifiers of letters, digits, `_`, `-`, `.`,
 * whitespace allowed inside the braces.
 */
const VARIABLE = /\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}/g;

/** Filled by the service from the request itself, never by `values`. */
export const BUILTIN_VARIABLES = ["last_user_message"] as const;

export interface TemplateVariables {
  /** what a caller fills in `values` */
  values: string[];
  /** filled by a search block */
  search: string[];
  /** filled by the service */
  builtin: string[];
  /** search blocks whose variable the template does not use (the API refuses them) */
  unusedSearch: string[];
}

export function variablesOf(templates: readonly string[]): string[] {
  const names = new Set<string>();
  for (const template of templates) {
    for (const match of template.matchAll(VARIABLE)) names.add(match[1]!);
  }
  return [...names];
}

export function classifyVariables(
  templates: readonly string[],
  searchVariables: readonly string[],
): TemplateVariables {
  const used = variablesOf(templates);
  const builtin = used.filter((name) => (BUILTIN_VARIABLES as readonly string[]).includes(name));
  const search = used.filter((name) => searchVariables.includes(name));
  const values = used.filter((name) => !builtin.includes(name) && !search.includes(name));
  const unusedSearch = searchVariables.filter((name) => name !== "" && !used.includes(name));
  return { values, search, builtin, unusedSearch };
}

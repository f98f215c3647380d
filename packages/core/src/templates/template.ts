/**
 * `{{variable}}` templates. Names are identifiers (letters, digits, _, -, .); whitespace inside
 * the braces is allowed. Anything else between braces is left as literal text.
 */
const VARIABLE = /\{\{\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*\}\}/g;

export function templateVariables(template: string): string[] {
  const names = new Set<string>();
  for (const match of template.matchAll(VARIABLE)) names.add(match[1]!);
  return [...names];
}

/** Renders in one pass, so a value that itself contains `{{x}}` is never expanded again. */
export function renderTemplate(template: string, values: Record<string, string>): string {
  return template.replace(VARIABLE, (whole, name: string) =>
    Object.hasOwn(values, name) ? (values[name] as string) : whole,
  );
}

/** A Content-Security-Policy header as `{ directive: "its sources" }`, to assert one at a time. */
export function cspDirectives(header: string): Record<string, string> {
  return Object.fromEntries(
    header.split(";").map((directive) => {
      const [name, ...values] = directive.trim().split(/\s+/);
      return [name, values.join(" ")];
    }),
  );
}

import { expect } from "vitest";

/** A Content-Security-Policy header as `{ directive: "its sources" }`, to assert one at a time. */
export function cspDirectives(header: string): Record<string, string> {
  return Object.fromEntries(
    header.split(";").map((directive) => {
      const [name, ...values] = directive.trim().split(/\s+/);
      return [name, values.join(" ")];
    }),
  );
}

/**
 * The policy of the pages the stack serves (/docs, /console): nothing by default, scripts and
 * fetches from the stack's own origin only, never framed, no other origin, eval or wildcard.
 */
export function expectOwnOriginCsp(header: string): void {
  const directives = cspDirectives(header);
  expect(directives["default-src"]).toBe("'none'");
  expect(directives["script-src"]).toBe("'self'");
  expect(directives["connect-src"]).toBe("'self'");
  expect(directives["frame-ancestors"]).toBe("'none'");
  expect(header).not.toMatch(/https?:|unsafe-eval|\*/);
}

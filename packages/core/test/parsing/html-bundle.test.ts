import { builtinModules } from "node:module";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { describe, expect, it } from "vitest";

/**
 * Lint keeps `node:*` out of our own sources; this keeps it out of what the HTML parser's
 * libraries (htmlparser2, entities) bring along, by bundling htmlToText as wrangler would
 * for workerd and listing what the bundle still imports.
 */
describe("the HTML parser's bundle", () => {
  it("imports nothing from Node and carries no DOM", async () => {
    const entry = fileURLToPath(new URL("../../src/parsing/html-to-text.ts", import.meta.url));
    const result = await build({
      entryPoints: [entry],
      bundle: true,
      write: false,
      format: "esm",
      platform: "neutral",
      mainFields: ["module", "main"],
      conditions: ["workerd", "worker", "browser"],
      minify: true,
      metafile: true,
      logLevel: "silent",
      // Left unresolved so that an import of one shows up below instead of failing the build.
      external: [...builtinModules, "node:*"],
    });
    const imported = Object.values(result.metafile.inputs).flatMap((input) =>
      input.imports.filter((i) => i.external).map((i) => i.path),
    );
    expect(imported).toEqual([]);

    const [output] = Object.values(result.metafile.outputs);
    const packages = new Set(
      Object.entries(output!.inputs)
        .filter(([, input]) => input.bytesInOutput > 0)
        .map(([path]) => /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?!.*node_modules)/.exec(path)?.[1])
        .filter((name) => name !== undefined),
    );
    // htmlparser2's DOM builder (domhandler, domutils) is shaken out: only its tokenizer is used
    expect([...packages].sort()).toEqual(["entities", "htmlparser2"]);
    expect(output!.bytes).toBeLessThan(80_000);
  });
});

import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { apiSchemaSource } from "../scripts/openapi-document.mts";

/**
 * The console's API types are generated from the API's own OpenAPI document; a route or
 * schema change without `pnpm --filter @quarry/console gen:api` fails here, not in a browser.
 */
describe("the console's generated API types", () => {
  it("match the api worker's current /openapi.json", async () => {
    const committed = await readFile(new URL("../src/api/schema.d.ts", import.meta.url), "utf8");
    const fresh = await apiSchemaSource();
    expect(fresh).toContain("/api/datasets/{id}/search");
    expect(committed, "stale: run `pnpm --filter @quarry/console gen:api`").toBe(fresh);
  });
});

/** Regenerates src/api/schema.d.ts from the api worker's OpenAPI document. */
import { writeFile } from "node:fs/promises";
import { apiSchemaSource } from "./openapi-document.mts";

const target = new URL("../src/api/schema.d.ts", import.meta.url);
await writeFile(target, await apiSchemaSource());
console.log(`wrote ${target.pathname}`);

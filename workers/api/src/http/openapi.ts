import { type ZodOpenAPIMetadata, zodToOpenAPIRegistry } from "@asteasolutions/zod-to-openapi";
import { z } from "@hono/zod-openapi";
import { ErrorEnvelope } from "./errors.ts";

/**
 * OpenAPI metadata for a schema that core defines (request schemas live next to their
 * operations in packages/core; schemas/* only document them). `.openapi()` would return a
 * copy that the schemas nesting the original never see, so this attaches the metadata to the
 * instance itself: a nested field shows its description wherever it appears, and with `id`
 * the schema is the component of that name.
 */
export function documented<T extends z.ZodType>(
  schema: T,
  metadata: Partial<ZodOpenAPIMetadata>,
  id?: string,
): T {
  zodToOpenAPIRegistry.add(schema, { ...(id ? { _internal: { refId: id } } : {}), ...metadata });
  return schema;
}

export const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: ErrorEnvelope } },
});

/** The error replies every route can give; spread into each route so the document shows them. */
export const errorResponses = {
  400: errorResponse("Invalid request: the message names the offending field"),
  401: errorResponse("Missing, malformed, unknown or revoked key, or a key of another project"),
  404: errorResponse("Unknown id within the caller's project"),
  500: errorResponse("Internal fault; quote the request id"),
} as const;

/**
 * A required JSON body. `required: true` matters: without it a request without a JSON
 * Content-Type skips validation entirely.
 */
export function jsonBody<T extends z.ZodType>(schema: T, description?: string) {
  return {
    required: true,
    description,
    content: { "application/json": { schema } },
  } as const;
}

export function jsonResponse<T extends z.ZodType>(schema: T, description: string) {
  return { description, content: { "application/json": { schema } } } as const;
}

export const projectSecurity = [{ apiKey: [] }];
export const adminSecurity = [{ adminToken: [] }];

/** `offset`/`page_size` for management listings (same names and limits as E6). */
export const PageQuery = z.object({
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0).openapi({ example: 0 }),
  page_size: z.coerce.number().int().min(1).max(1000).default(100).openapi({ example: 100 }),
});

export function toPage(q: z.infer<typeof PageQuery>) {
  return { offset: q.offset, pageSize: q.page_size };
}

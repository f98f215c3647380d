import { z } from "@hono/zod-openapi";
import { AdminListInput, DEFAULT_ADMIN_PAGE_SIZE, MAX_ADMIN_PAGE_SIZE } from "@quarry/core";

/**
 * The admin listings (docs/api.md#admin). The query is the domain's
 * (`packages/core/src/admin/admin-list-input.ts`) with its OpenAPI descriptions.
 */
export const AdminListQuery = AdminListInput.extend({
  offset: AdminListInput.shape.offset.openapi({ description: "Default 0", example: 0 }),
  page_size: AdminListInput.shape.page_size.openapi({
    description: `Default ${DEFAULT_ADMIN_PAGE_SIZE}, at most ${MAX_ADMIN_PAGE_SIZE}`,
    example: DEFAULT_ADMIN_PAGE_SIZE,
  }),
});

export const ApiKeySummarySchema = z
  .object({
    id: z.string(),
    name: z.string().nullable(),
    email: z.string().nullable(),
    prefix: z.string().openapi({
      description:
        "The key's first characters (`qry_` and 6 more), to tell which id a key has; never the key or its hash",
    }),
    project_id: z.string(),
    created_at: z.string(),
    revoked_at: z.string().nullable().openapi({ description: "null while the key works" }),
  })
  .openapi("ApiKeySummary");

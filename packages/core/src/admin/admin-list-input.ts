import { z } from "zod";

/** The admin listings page like the management routes (docs/api.md#management-routes). */
export const DEFAULT_ADMIN_PAGE_SIZE = 100;
export const MAX_ADMIN_PAGE_SIZE = 1000;
export const MAX_ADMIN_OFFSET = 1_000_000;

const integer = (min: number, max: number) => {
  const error = `must be an integer from ${min} to ${max}`;
  return z.coerce.number({ error }).int({ error }).min(min, { error }).max(max, { error });
};

/** `GET /admin/projects` and `GET /admin/projects/{id}/keys`: oldest first, by offset. */
export const AdminListInput = z.object({
  offset: integer(0, MAX_ADMIN_OFFSET).default(0),
  page_size: integer(1, MAX_ADMIN_PAGE_SIZE).default(DEFAULT_ADMIN_PAGE_SIZE),
});
export type AdminListInput = z.output<typeof AdminListInput>;

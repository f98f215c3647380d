import { z } from "zod";
import { RowData } from "./row-input.ts";
import { UserMetadataInput } from "./row-metadata.ts";

/** E8's body: a patch of data and/or metadata (keys not named stay as they are). */
export const UpdateRowInput = z
  .object({ data: RowData.optional(), metadata: UserMetadataInput.optional() })
  .strict()
  .refine((patch) => patch.data !== undefined || patch.metadata !== undefined, {
    error: "at least one of 'data' or 'metadata' is required",
  });
export type UpdateRowInput = z.output<typeof UpdateRowInput>;

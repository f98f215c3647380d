import { z } from "zod";
import { ResourceName } from "../shared/resource-name.ts";
import { SYSTEM_METADATA_KEYS } from "../shared/system-metadata.ts";

/** The most dimensions a dataset's vectors may have (given, or known for its model). */
export const MAX_DIMENSIONS = 4000;
export const MAX_COLUMNS = 32;
export const MAX_METADATA_COLUMNS = 64;
export const MAX_COLUMN_NAME_LENGTH = 63;
export const MAX_EMBEDDING_MODEL_LENGTH = 200;

/** Column names become SQL-safe keys: an identifier of at most 63 characters. */
const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

const ColumnName = z
  .string()
  .min(1)
  .max(MAX_COLUMN_NAME_LENGTH)
  .refine((name) => IDENTIFIER.test(name), {
    error: "must be a letter or _ followed by letters, digits or _",
  });

const ColumnInput = z
  .object({
    name: ColumnName,
    type: z.literal("text").default("text"),
    embed: z.boolean().default(false),
  })
  .strict();

const MetadataColumnInput = z
  .object({
    name: ColumnName.refine((name) => !SYSTEM_METADATA_KEYS.has(name), {
      error: "is a system metadata key",
    }),
    type: z.enum(["string", "number", "boolean", "string[]"]),
  })
  .strict();

/** Names must be unique within a list: the duplicate is named by its index. */
function uniqueNames(columns: readonly { name: string }[], ctx: z.RefinementCtx): void {
  const seen = new Set<string>();
  columns.forEach((column, i) => {
    if (seen.has(column.name)) {
      ctx.addIssue({ code: "custom", message: "duplicate column", path: [i, "name"] });
    }
    seen.add(column.name);
  });
}

/**
 * The body that creates a dataset. Whether the embedding model (given or the deployment's
 * default) is supported, and its dimensions known, is checked by `createDataset`.
 */
export const CreateDatasetInput = z
  .object({
    name: ResourceName,
    kind: z.enum(["standard", "hybrid"]).optional(),
    columns: z
      .array(ColumnInput)
      .min(1, { error: "at least one column is required" })
      .max(MAX_COLUMNS)
      .superRefine((columns, ctx) => {
        uniqueNames(columns, ctx);
        // One embedded column per dataset: search ranks a row by one vector, and E9 embeds
        // `text`.
        if (columns.filter((c) => c.embed).length > 1) {
          ctx.addIssue({ code: "custom", message: "at most one column can be embedded" });
        }
      })
      .optional(),
    metadata_columns: z
      .array(MetadataColumnInput)
      .max(MAX_METADATA_COLUMNS)
      .superRefine(uniqueNames)
      .optional(),
    embedding_model: z.string().min(1).max(MAX_EMBEDDING_MODEL_LENGTH).optional(),
    /** only needed for embedding models whose dimensions Quarry does not know */
    dimensions: z.number().int().min(1).max(MAX_DIMENSIONS).optional(),
  })
  .strict();
export type CreateDatasetInput = z.output<typeof CreateDatasetInput>;

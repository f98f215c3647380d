import { z } from "@hono/zod-openapi";

const Id = z.string().min(1).max(128);
const Name = z.string().trim().min(1).max(200);

export const ProjectSchema = z
  .object({ id: z.string(), name: z.string(), created_at: z.string() })
  .openapi("Project");
export const CreateProjectBody = z.object({ name: Name }).strict().openapi("CreateProject");

export const ApiKeySchema = z
  .object({
    id: z.string(),
    key: z.string().openapi({ description: "Shown once; only its hash is stored" }),
    name: z.string().nullable(),
    email: z.string().nullable(),
    project_id: z.string(),
    created_at: z.string(),
  })
  .openapi("ApiKey");
export const CreateApiKeyBody = z
  .object({ name: Name.optional(), email: z.string().email().max(320).optional() })
  .strict()
  .openapi("CreateApiKey");

const ColumnSchema = z
  .object({
    name: z.string().min(1).max(63),
    type: z.literal("text").default("text"),
    embed: z.boolean().default(false),
  })
  .strict();
const MetadataColumnSchema = z
  .object({
    name: z.string().min(1).max(63),
    type: z.enum(["string", "number", "boolean", "string[]"]),
  })
  .strict();

export const CreateDatasetBody = z
  .object({
    name: Name,
    kind: z.enum(["standard", "hybrid"]).optional(),
    columns: z.array(ColumnSchema).min(1).max(32).optional(),
    metadata_columns: z.array(MetadataColumnSchema).max(64).optional().openapi({
      description:
        "Typed metadata keys. CSV uploads turn these columns' cells into metadata of the type (empty cells are left out), and every write of metadata (E5, E8, E9, E11–E13) must give a declared key exactly its type or leave it out (`null` is refused): otherwise 400 `expected <type>` and nothing is written. Undeclared keys stay free-form.",
    }),
    embedding_model: z.string().min(1).max(200).optional().openapi({ example: "local/hash" }),
    dimensions: z.number().int().min(1).max(4000).optional(),
  })
  .strict()
  .openapi("CreateDataset");

export const DatasetSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    kind: z.enum(["standard", "hybrid"]),
    columns: z.array(z.object({ name: z.string(), type: z.literal("text"), embed: z.boolean() })),
    metadata_columns: z.array(
      z.object({ name: z.string(), type: z.enum(["string", "number", "boolean", "string[]"]) }),
    ),
    embedding_model: z.string(),
    dimensions: z.number().int(),
    created_at: z.string(),
  })
  .openapi("Dataset");

export const DatasetDetailSchema = DatasetSchema.extend({
  vector_index: z
    .object({
      pending_rows: z
        .number()
        .int()
        .describe(
          "Rows stored but not yet in the dataset's HNSW graph. They are searchable already (ranked exactly); the ingest worker indexes them shortly after each write.",
        ),
      ef_search: z
        .number()
        .int()
        .describe(
          "HNSW candidate list size (pgvector's hnsw.ef_search) the dataset's searches use (at least top_k): measured on the dataset's own graph as the smallest size reaching recall@10 ≥ 0.97, or the embedding model family's default until then (graphs under 1,000 vectors are not measured). Measured again each time the graph doubles.",
        ),
      recall_at_10: z
        .number()
        .nullable()
        .describe(
          "Recall@10 measured at ef_search against exact search, over 30 short phrases taken from the dataset's own texts and embedded with its model; null until measured.",
        ),
      measured_rows: z
        .number()
        .int()
        .nullable()
        .describe("Vectors in the graph when ef_search was measured; null until measured."),
    })
    .describe("State of the dataset's vector index"),
}).openapi("DatasetDetail");

export const DocumentSchema = z
  .object({
    id: z.string(),
    dataset_id: z.string(),
    filename: z.string().nullable(),
    url: z
      .string()
      .nullable()
      .describe(
        "For a stored file, its storage key `/<dataset_id>/<document_id>/<file name>` (not a link: open the file with `GET /api/datasets/{id}/documents/{document_id}/file`); for E5, the `url` given. Rows carry it in their metadata.",
      ),
    status: z.enum(["queued", "processing", "ready", "failed"]),
    error: z.string().nullable(),
    row_count: z.number().int(),
    progress: z
      .object({
        unit: z.enum(["bytes", "pages", "rows"]),
        done: z.number(),
        total: z.number().nullable(),
        rows: z.number(),
      })
      .nullable(),
    metadata: z.record(z.string(), z.unknown()),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Document");

const MessageTemplate = z
  .object({ role: z.enum(["system", "user", "assistant"]), content: z.string().max(100_000) })
  .strict();
const SearchBlockSchema = z
  .object({
    dataset_id: Id,
    variable: z.string().regex(/^[A-Za-z_][A-Za-z0-9_.-]*$/, "must be a template variable name"),
    query: z.string().min(1).max(10_000),
    top_k: z.number().int().min(1).max(100).optional(),
    filter: z.record(z.string(), z.unknown()).optional(),
    alpha: z.number().min(0).max(1).optional(),
  })
  .strict()
  .openapi("SearchBlock");

const endpointFields = {
  model: z.string().min(1).max(200).openapi({ example: "local/echo" }),
  prompt: z.string().max(100_000).nullable().optional(),
  messages: z.array(MessageTemplate).min(1).max(100).nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  max_tokens: z.number().int().min(1).max(1_000_000).nullable().optional(),
  search: z.array(SearchBlockSchema).max(8).optional(),
};

export const CreateEndpointBody = z
  .object({ name: Name, ...endpointFields })
  .strict()
  .openapi("CreateEndpoint");

export const UpdateEndpointBody = z
  .object({ name: Name.optional(), ...endpointFields, model: endpointFields.model.optional() })
  .strict()
  .refine((b) => Object.keys(b).length > 0, { message: "at least one field is required" })
  .openapi("UpdateEndpoint");

export const EndpointSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    model: z.string(),
    type: z.enum(["chat", "completion"]),
    prompt: z.string().nullable(),
    messages: z.array(MessageTemplate).nullable(),
    temperature: z.number().nullable(),
    max_tokens: z.number().nullable(),
    search: z.array(SearchBlockSchema),
    variables: z
      .array(z.string())
      .openapi({ description: "Variables the caller fills in `values`" }),
    deployment_id: z.number().int(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .openapi("Endpoint");

const pathId = (name: string, description: string) =>
  Id.openapi({ param: { name, in: "path" }, description });

export const ProjectParams = z.object({ id: pathId("id", "Project id") });
export const KeyParams = z.object({ key_id: pathId("key_id", "API key id") });
export const DatasetParams = z.object({ id: pathId("id", "Dataset id") });
export const DocumentParams = z.object({
  id: pathId("id", "Dataset id"),
  document_id: pathId("document_id", "Document id"),
});
export const EndpointParams = z.object({ id: pathId("id", "Endpoint id") });

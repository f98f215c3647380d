import { z } from "@hono/zod-openapi";
import {
  CreateDatasetInput,
  CreateEndpointInput,
  MessageTemplate,
  ResourceId,
  ResourceName,
  SearchBlockInput,
  UpdateEndpointInput,
} from "@quarry/core";
import { documented } from "../openapi.ts";

const Id = ResourceId;
const Name = ResourceName;

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

/** The dataset body is core's (`packages/core/src/datasets/create-dataset-input.ts`). */
documented(CreateDatasetInput.shape.metadata_columns, {
  description:
    "Typed metadata keys. CSV uploads turn these columns' cells into metadata of the type (empty cells are left out), and every write of metadata (E5, E8, E9, E11–E13) must give a declared key exactly its type or leave it out (`null` is refused): otherwise 400 `expected <type>` and nothing is written. Undeclared keys stay free-form.",
});
documented(CreateDatasetInput.shape.embedding_model, { example: "local/hash" });
export const CreateDatasetBody = CreateDatasetInput.openapi("CreateDataset");

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
    row_count: z
      .number()
      .int()
      .describe("Rows the dataset holds now, counted when read (committed writes only)"),
    document_count: z
      .number()
      .int()
      .describe("Documents the dataset holds now, whatever their status"),
  })
  .openapi("Dataset");

export const DatasetDetailSchema = DatasetSchema.extend({
  vector_index: z
    .object({
      pending_rows: z
        .number()
        .int()
        .describe(
          "Rows stored but not yet in the dataset's HNSW graph serving searches: waiting in the backlog, or moved in for the next graph while it is built. They are searchable already (ranked exactly); the ingest worker indexes them shortly after each write.",
        ),
      graph: z
        .enum(["valid", "building", "invalid", "missing"])
        .describe(
          "The dataset's HNSW graph that serves searches: `valid` (also while a new graph is built beside it, see rebuilding); `building`, `invalid` or `missing` only for a dataset whose graph predates rebuilds beside the serving one, while its first rebuild runs or after it was cut short (the ingest worker builds it again). Until it is `valid`, searches rank the dataset's rows exactly: correct, only slower.",
        ),
      rebuilding: z
        .boolean()
        .describe(
          "Whether a new graph is being built over the dataset's vectors (after a large backlog), or a build cut short waits to be finished. The current graph serves searches meanwhile, and the rows moved in for the new one (counted in pending_rows) are ranked exactly.",
        ),
      ef_search: z
        .number()
        .int()
        .describe(
          "HNSW candidate list size (pgvector's hnsw.ef_search) the dataset's searches use (at least top_k): measured on the dataset's own graph as the smallest size at which recall@10 for its queries (see measured_on) is at least 0.95 with 95 % confidence (the recall measured, less 1.645 standard errors of it over the queries, reaches 0.95), or the embedding model family's default until then (graphs under 1,000 vectors are not measured). Measured again each time the graph doubles, once the dataset has been searched enough to be measured on its own searches, and each time it has kept twice as many searches as the last measurement ranked (up to 128).",
        ),
      recall_at_10: z
        .number()
        .nullable()
        .describe(
          "Recall@10 measured at ef_search against exact search, for the queries measured_on names; null until measured.",
        ),
      measured_rows: z
        .number()
        .int()
        .nullable()
        .describe("Vectors in the graph when ef_search was measured; null until measured."),
      measured_on: z
        .enum(["searches", "stored_texts"])
        .nullable()
        .describe(
          "The queries ef_search was measured on: `searches`, the query vectors of up to 128 of the dataset's recent semantic and hybrid searches (kept from 30 on); `stored_texts`, 30 phrases of 3–6 words taken from its rows' texts and embedded with its model, until it has been searched enough. Null until measured.",
        ),
      measured_queries: z
        .number()
        .int()
        .nullable()
        .describe(
          "How many queries the measurement ranked (more give a tighter estimate, so a shorter list at the same confidence); null until measured, and for measurements made before this was recorded.",
        ),
      m: z
        .number()
        .int()
        .describe(
          "HNSW links per vector (pgvector's m) the graph was built with, chosen when the dataset was created: by the embedding model's family (16, pgvector's default, for trained models; 24 for local/*, whose vectors need a denser graph), unless the deployment sets VECTOR_GRAPH_M.",
        ),
      ef_construction: z
        .number()
        .int()
        .describe(
          "HNSW candidate list size while linking (pgvector's ef_construction) the graph was built with: 64, pgvector's default, for trained models; 256 for local/*; or the deployment's VECTOR_GRAPH_EF_CONSTRUCTION.",
        ),
      encoding: z
        .enum(["vector", "halfvec"])
        .describe(
          "The precision the graph holds vectors in, chosen when the dataset was created: `halfvec` (half precision, of the unit vector) unless the deployment sets VECTOR_GRAPH_ENCODING=vector (`pnpm dev` on PGlite does). The graph only orders the walk: reported confidences, exact rankings and the recall ef_search is measured for are computed in full precision.",
        ),
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

/**
 * The endpoint bodies are core's (`packages/core/src/endpoints/endpoint-input.ts`); this file
 * documents them.
 */
const SearchBlockSchema = documented(SearchBlockInput, {}, "SearchBlock");
documented(CreateEndpointInput.shape.model, { example: "local/echo" });
export const CreateEndpointBody = CreateEndpointInput.openapi("CreateEndpoint");
export const UpdateEndpointBody = UpdateEndpointInput.openapi("UpdateEndpoint");

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

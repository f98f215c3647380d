import { isSupportedModel } from "@quarry/providers";
import { z } from "zod";
import { MAX_QUERY_CHARS, searchAlpha, topK } from "../search/search-input.ts";
import { MAX_NAME_LENGTH, ResourceId, ResourceName } from "../shared/resource-name.ts";
import { isBuiltinVariable } from "../templates/builtin-variables.ts";

export const MAX_TEMPLATE_CHARS = 100_000;
export const MAX_TEMPLATE_MESSAGES = 100;
export const MAX_SEARCH_BLOCKS = 8;
export const MAX_ENDPOINT_TOKENS = 1_000_000;

/** One message of a chat endpoint's template. */
export const MessageTemplate = z
  .object({
    role: z.enum(["system", "user", "assistant"]),
    content: z.string().max(MAX_TEMPLATE_CHARS),
  })
  .strict();

/**
 * A search block fills `variable` with the results of E2 (`query`, `top_k`, `filter`, `alpha`)
 * over a dataset. Whether the variable appears in the template and the dataset exists is
 * checked against the endpoint and the project (`toEndpointConfig`).
 */
export const SearchBlockInput = z
  .object({
    dataset_id: ResourceId,
    variable: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_.-]*$/, "must be a template variable name")
      .refine((name) => !isBuiltinVariable(name), {
        error: (issue) =>
          `'${String(issue.input)}' is a built-in variable (the request fills it); name another`,
      }),
    // A template: rendered, it is E2's query.
    query: z.string().min(1).max(MAX_QUERY_CHARS),
    top_k: topK(),
    filter: z.record(z.string(), z.unknown()).optional(),
    alpha: searchAlpha(),
  })
  .strict();

const SearchBlocks = z
  .array(SearchBlockInput)
  .max(MAX_SEARCH_BLOCKS)
  .superRefine((blocks, ctx) => {
    const seen = new Set<string>();
    blocks.forEach((block, i) => {
      if (seen.has(block.variable)) {
        ctx.addIssue({
          code: "custom",
          message: "two search blocks fill the same variable",
          path: [i, "variable"],
        });
      }
      seen.add(block.variable);
    });
  });

const Model = z.string().min(1).max(MAX_NAME_LENGTH).refine(isSupportedModel, {
  error: "unsupported model; use openai/<model>, workers-ai/<model> or local/echo",
});

const endpointFields = {
  model: Model,
  prompt: z.string().max(MAX_TEMPLATE_CHARS).nullable().optional(),
  messages: z.array(MessageTemplate).min(1).max(MAX_TEMPLATE_MESSAGES).nullable().optional(),
  temperature: z.number().min(0).max(2).nullable().optional(),
  max_tokens: z.number().int().min(1).max(MAX_ENDPOINT_TOKENS).nullable().optional(),
  search: SearchBlocks.optional(),
};

/** An endpoint is either completion-style (`prompt`) or chat-style (`messages`). */
const ONE_TEMPLATE = "exactly one of prompt or messages is required";

/** The body that creates an endpoint (deployment 1). */
export const CreateEndpointInput = z
  .object({ name: ResourceName, ...endpointFields })
  .strict()
  .superRefine((body, ctx) => {
    if ((body.prompt != null) === (body.messages != null)) {
      ctx.addIssue({ code: "custom", message: ONE_TEMPLATE, path: ["prompt"] });
    }
  });
export type CreateEndpointInput = z.output<typeof CreateEndpointInput>;

/**
 * The body that updates an endpoint: the fields given replace the deployed ones. One template
 * style replaces the other, so a patch may give one of them, not both.
 */
export const UpdateEndpointInput = z
  .object({ name: ResourceName.optional(), ...endpointFields, model: Model.optional() })
  .strict()
  .superRefine((body, ctx) => {
    if (Object.keys(body).length === 0) {
      ctx.addIssue({ code: "custom", message: "at least one field is required" });
    }
    if (body.prompt != null && body.messages != null) {
      ctx.addIssue({ code: "custom", message: ONE_TEMPLATE, path: ["prompt"] });
    }
  });
export type UpdateEndpointInput = z.output<typeof UpdateEndpointInput>;

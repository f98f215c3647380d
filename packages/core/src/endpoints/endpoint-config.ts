import {
  type ChatMessageTemplate,
  datasets,
  type EndpointConfig,
  type SearchBlock,
} from "@quarry/db";
import { and, eq, inArray, sql } from "drizzle-orm";
import { compileFilter } from "../filter/compile-filter.ts";
import type { ProjectContext } from "../shared/context.ts";
import { BadRequestError } from "../shared/errors.ts";
import { valueVariables } from "../templates/request-variables.ts";
import { templateVariables } from "../templates/template.ts";

export interface EndpointSettings {
  model: string;
  prompt?: string | null;
  messages?: ChatMessageTemplate[] | null;
  temperature?: number | null;
  max_tokens?: number | null;
  search?: SearchBlock[];
}

/**
 * Variables the caller must supply in `values`: the template's, minus those search fills,
 * then the search queries'; built-in ones (`last_user_message`) come from the request.
 */
export function callerVariables(config: EndpointConfig): string[] {
  return valueVariables(config);
}

export function templateText(config: Pick<EndpointConfig, "prompt" | "messages">): string[] {
  return config.prompt !== null ? [config.prompt] : (config.messages ?? []).map((m) => m.content);
}

/**
 * Freezes settings into the config a deployment serves. The body's own rules are its schema's
 * (`endpoint-input.ts`); what is checked here depends on the merged template and the project.
 */
export async function toEndpointConfig(
  ctx: ProjectContext,
  settings: EndpointSettings,
): Promise<EndpointConfig> {
  const prompt = settings.prompt ?? null;
  const config: EndpointConfig = {
    model: settings.model,
    type: prompt !== null ? "completion" : "chat",
    prompt,
    messages: prompt !== null ? null : (settings.messages ?? null),
    temperature: settings.temperature ?? null,
    maxTokens: settings.max_tokens ?? null,
    search: settings.search ?? [],
  };
  await validateSearch(ctx, config);
  return config;
}

async function validateSearch(ctx: ProjectContext, config: EndpointConfig): Promise<void> {
  if (config.search.length === 0) return;
  const used = new Set(templateText(config).flatMap(templateVariables));
  config.search.forEach((block, i) => {
    if (!used.has(block.variable)) {
      throw new BadRequestError(
        `variable '${block.variable}' does not appear as {{${block.variable}}} in the template`,
        `search[${i}].variable`,
      );
    }
    // Checked now, not at the first completion: a filter outside the grammar (or nested too
    // deep) would otherwise be deployed and fail every call.
    if (block.filter !== undefined) {
      compileFilter(block.filter, sql`metadata`, `search[${i}].filter`);
    }
  });
  const ids = [...new Set(config.search.map((s) => s.dataset_id))];
  const found = await ctx.db
    .select({ id: datasets.id })
    .from(datasets)
    .where(and(eq(datasets.projectId, ctx.projectId), inArray(datasets.id, ids)));
  const known = new Set(found.map((d) => d.id));
  config.search.forEach((block, i) => {
    if (!known.has(block.dataset_id)) {
      throw new BadRequestError(
        `dataset '${block.dataset_id}' not found`,
        `search[${i}].dataset_id`,
      );
    }
  });
}

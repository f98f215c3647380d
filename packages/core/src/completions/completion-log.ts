import { logs } from "@quarry/db";
import type { ChatTurn } from "@quarry/providers";
import type { ProjectContext } from "../shared/context.ts";
import type { CompletionCosts } from "./completion-usage.ts";
import type { CompletionSearchResult } from "./search-context.ts";

/**
 * The HTTP status a log records: what the caller got, or for a stream that ended badly after
 * its 200, what the completion came to. 499 is nginx's "client closed request": the caller
 * went away before the end (the completion is kept up to where it stopped).
 */
export const LOG_STATUS = { ok: 200, upstreamError: 502, internal: 500, abandoned: 499 } as const;

export interface CompletionLogEntry {
  id: string;
  endpointId: string;
  deploymentId: number;
  userId: string;
  /** the model as the provider named it */
  model: string;
  serviceModelName: string;
  prompt: string | ChatTurn[];
  completion: string;
  values: Record<string, unknown> | null;
  searchResults: CompletionSearchResult[];
  status: number;
  error: string | null;
  costs: CompletionCosts;
  temperature: number | null;
  latencyMs: number;
  createdAt: Date;
}

/** One row per completion, whatever its outcome (E7 lists them). */
export async function writeCompletionLog(
  ctx: ProjectContext,
  entry: CompletionLogEntry,
): Promise<void> {
  await ctx.db.insert(logs).values({
    id: entry.id,
    projectId: ctx.projectId,
    endpointId: entry.endpointId,
    deploymentId: entry.deploymentId,
    userId: entry.userId,
    model: entry.model,
    serviceModelName: entry.serviceModelName,
    prompt: entry.prompt,
    completion: entry.completion,
    values: entry.values,
    searchResults: entry.searchResults,
    status: entry.status,
    error: entry.error,
    promptTokens: entry.costs.usage.prompt_tokens,
    completionTokens: entry.costs.usage.completion_tokens,
    promptCost: entry.costs.prompt_cost,
    completionCost: entry.costs.completion_cost,
    temperature: entry.temperature,
    latencyMs: Math.round(entry.latencyMs),
    createdAt: entry.createdAt,
  });
}

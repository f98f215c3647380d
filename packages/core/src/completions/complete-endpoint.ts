import { generateCompletion } from "@quarry/providers";
import type { ProjectContext } from "../shared/context.ts";
import type { CompletionInput } from "./completion-input.ts";
import { LOG_STATUS } from "./completion-log.ts";
import { type CompletionResponse, completionResponse } from "./completion-reply.ts";
import { type CompletionOptions, CompletionRun } from "./completion-run.ts";

/**
 * E4 without `stream`: search, render, call the model, log, reply with the Completion response
 * (docs/api.md#completion-response). The log is written before the reply, so its `usage_id` can be
 * rated at once. A provider failure is logged and thrown as an `upstream_error`.
 */
export async function completeEndpoint(
  ctx: ProjectContext,
  endpointId: string,
  input: CompletionInput,
  options: CompletionOptions,
): Promise<CompletionResponse> {
  const run = await CompletionRun.start(ctx, endpointId, input, options);
  await run.retrieve();
  const { model, call } = await run.model();
  let reply: Awaited<ReturnType<typeof generateCompletion>>;
  try {
    reply = await generateCompletion(model, call);
  } catch (error) {
    throw await run.fail(error);
  }
  const costs = await run.finish({
    status: LOG_STATUS.ok,
    error: null,
    text: reply.text,
    usage: reply.usage,
    modelId: reply.modelId,
  });
  return completionResponse(run, reply, costs, await run.results());
}

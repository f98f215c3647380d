import { endpointDeployments, endpoints } from "@quarry/db";
import { and, eq } from "drizzle-orm";
import type { ProjectContext } from "../shared/context.ts";
import { ConflictError } from "../shared/errors.ts";
import { callerVariables, toEndpointConfig } from "./endpoint-config.ts";
import type { UpdateEndpointInput } from "./endpoint-input.ts";
import { type EndpointView, toEndpointView } from "./endpoint-view.ts";
import { requireEndpoint } from "./require-endpoint.ts";

/**
 * Every update is a new deployment: the merged settings are validated as a whole, frozen in
 * `endpoint_deployments`, and `deployment_id` increases. The compare-and-set on the old
 * deployment id makes two concurrent updates a 409 instead of a lost update.
 */
export async function updateEndpoint(
  ctx: ProjectContext,
  endpointId: string,
  patch: UpdateEndpointInput,
): Promise<EndpointView> {
  const current = await requireEndpoint(ctx, endpointId);
  // Giving one template style replaces the other: an endpoint is either chat or completion.
  const switchesStyle = patch.prompt != null || patch.messages != null;
  const config = await toEndpointConfig(ctx, {
    model: patch.model ?? current.model,
    prompt: switchesStyle ? (patch.prompt ?? null) : current.prompt,
    messages: switchesStyle ? (patch.messages ?? null) : current.messages,
    temperature: patch.temperature !== undefined ? patch.temperature : current.temperature,
    max_tokens: patch.max_tokens !== undefined ? patch.max_tokens : current.maxTokens,
    search: patch.search ?? current.search,
  });
  const deploymentId = current.deploymentId + 1;
  const updated = await ctx.db.transaction(async (tx) => {
    const [row] = await tx
      .update(endpoints)
      .set({ name: patch.name ?? current.name, ...config, deploymentId, updatedAt: new Date() })
      .where(and(eq(endpoints.id, current.id), eq(endpoints.deploymentId, current.deploymentId)))
      .returning();
    if (!row) throw new ConflictError("endpoint was updated concurrently; retry");
    await tx
      .insert(endpointDeployments)
      .values({ projectId: ctx.projectId, endpointId: current.id, deploymentId, config });
    return row;
  });
  return toEndpointView(updated, callerVariables(config));
}

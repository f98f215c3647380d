import { endpointDeployments, endpoints } from "@quarry/db";
import type { ProjectContext } from "../shared/context.ts";
import { newId } from "../shared/ids.ts";
import { callerVariables, toEndpointConfig } from "./endpoint-config.ts";
import type { CreateEndpointInput } from "./endpoint-input.ts";
import { type EndpointView, toEndpointView } from "./endpoint-view.ts";

export async function createEndpoint(
  ctx: ProjectContext,
  input: CreateEndpointInput,
): Promise<EndpointView> {
  const config = await toEndpointConfig(ctx, input);
  const id = newId("ep");
  const endpoint = await ctx.db.transaction(async (tx) => {
    const [created] = await tx
      .insert(endpoints)
      .values({ id, projectId: ctx.projectId, name: input.name, ...config, deploymentId: 1 })
      .returning();
    await tx
      .insert(endpointDeployments)
      .values({ projectId: ctx.projectId, endpointId: id, deploymentId: 1, config });
    return created;
  });
  if (!endpoint) throw new Error("insert returned no endpoint");
  return toEndpointView(endpoint, callerVariables(config));
}

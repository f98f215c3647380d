import { endpoints } from "@quarry/db";
import { asc, eq } from "drizzle-orm";
import type { Page, ProjectContext } from "../shared/context.ts";
import { callerVariables } from "./endpoint-config.ts";
import { type EndpointRecord, type EndpointView, toEndpointView } from "./endpoint-view.ts";
import { requireEndpoint } from "./require-endpoint.ts";

export function viewOf(e: EndpointRecord): EndpointView {
  return toEndpointView(e, callerVariables({ ...e, maxTokens: e.maxTokens }));
}

export async function getEndpoint(ctx: ProjectContext, endpointId: string): Promise<EndpointView> {
  return viewOf(await requireEndpoint(ctx, endpointId));
}

export async function listEndpoints(ctx: ProjectContext, page: Page): Promise<EndpointView[]> {
  const found = await ctx.db
    .select()
    .from(endpoints)
    .where(eq(endpoints.projectId, ctx.projectId))
    .orderBy(asc(endpoints.createdAt), asc(endpoints.id))
    .limit(page.pageSize)
    .offset(page.offset);
  return found.map(viewOf);
}

/** Deleting an endpoint removes its deployments and logs with it (foreign-key cascade). */
export async function deleteEndpoint(ctx: ProjectContext, endpointId: string): Promise<void> {
  const endpoint = await requireEndpoint(ctx, endpointId);
  await ctx.db.delete(endpoints).where(eq(endpoints.id, endpoint.id));
}

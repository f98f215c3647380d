import type { endpoints } from "@quarry/db";

export type EndpointRecord = typeof endpoints.$inferSelect;

export interface EndpointView {
  id: string;
  name: string;
  model: string;
  type: EndpointRecord["type"];
  prompt: string | null;
  messages: EndpointRecord["messages"];
  temperature: number | null;
  max_tokens: number | null;
  search: EndpointRecord["search"];
  variables: string[];
  deployment_id: number;
  created_at: string;
  updated_at: string;
}

export function toEndpointView(e: EndpointRecord, variables: string[]): EndpointView {
  return {
    id: e.id,
    name: e.name,
    model: e.model,
    type: e.type,
    prompt: e.prompt,
    messages: e.messages,
    temperature: e.temperature,
    max_tokens: e.maxTokens,
    search: e.search,
    variables,
    deployment_id: e.deploymentId,
    created_at: e.createdAt.toISOString(),
    updated_at: e.updatedAt.toISOString(),
  };
}

import { createQuarryApi, type QuarryApi } from "./api.ts";
import type { BenchContext } from "./bench.ts";
import { createTenant, type Tenant } from "./target.ts";

export interface BenchTenant extends Tenant {
  /** the public API as this tenant's key */
  api: QuarryApi;
}

/**
 * How a benchmark starts once it has sized itself: the parameters actually used go to the
 * progress log first (so a failed run still says what it tried), then the run gets a fresh
 * project and key of its own, `bench-<name>-<time>`, so runs against one stack never share data.
 */
export async function startBenchTenant(
  { http, target, progress }: Pick<BenchContext, "http" | "target" | "progress">,
  name: string,
  params: Record<string, unknown>,
): Promise<BenchTenant> {
  progress(`params: ${JSON.stringify(params)}`);
  const tenant = await createTenant(http, target, `bench-${name}-${Date.now()}`);
  return { ...tenant, api: createQuarryApi(http, tenant.apiKey) };
}

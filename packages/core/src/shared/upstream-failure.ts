import { toProviderError } from "@quarry/providers";
import { ServiceError, UpstreamError } from "./errors.ts";

/**
 * Any failure of a model provider call in the domain's terms: a `ServiceError` as it is, else a
 * 502 `upstream_error` that names the call (`subject`, e.g. "the model 'gpt-4o-mini'") and the
 * provider's status. Still rate limited after our retries is the provider's failure, not the
 * caller's (not 429).
 */
export function upstreamFailure(error: unknown, subject: string): ServiceError {
  if (error instanceof ServiceError) return error;
  const provider = toProviderError(error);
  const status = provider.status ? ` (status ${provider.status})` : "";
  return new UpstreamError(`${subject} failed${status}: ${provider.message}`, provider.status, {
    cause: error,
  });
}

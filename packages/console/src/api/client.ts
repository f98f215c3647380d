import createClient, { type Middleware } from "openapi-fetch";
import { loadCredential } from "./credentials.ts";
import { apiErrorOf } from "./errors.ts";
import type { paths } from "./schema";

/**
 * The typed API client (openapi-fetch over the types generated from /openapi.json). The console
 * is served by the API itself, so the API is this page's own origin; the credential is attached
 * to requests for that origin only, never to another host.
 */
export const API_ORIGIN = window.location.origin;

export function authorizationFor(url: string): string | null {
  if (new URL(url, API_ORIGIN).origin !== API_ORIGIN) return null;
  const credential = loadCredential();
  return credential ? `Bearer ${credential.token}` : null;
}

const authorize: Middleware = {
  onRequest({ request }) {
    const authorization = authorizationFor(request.url);
    if (authorization) request.headers.set("Authorization", authorization);
    return request;
  },
};

export const api = createClient<paths>({ baseUrl: API_ORIGIN });
api.use(authorize);

interface FetchResult<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/**
 * The data of a successful reply, or an ApiError carrying the envelope's message. Used as
 * `useQuery({ queryFn: () => ok(api.GET(...)) })`.
 */
export async function ok<T>(request: Promise<FetchResult<T>>): Promise<T> {
  const { data, error, response } = await request;
  if (!response.ok || error !== undefined)
    throw apiErrorOf(response.status, error, response.headers.get("x-request-id"));
  return data as T;
}

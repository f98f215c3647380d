import type { OpenAPIHono } from "@hono/zod-openapi";
import { METHOD_NAME_ALL } from "hono/router";
import { TrieRouter } from "hono/router/trie-router";
import type { HonoEnv } from "./hono-env.ts";

interface RouteEntry {
  method: string;
  /** the media types its request body is declared with in the OpenAPI document */
  bodyTypes: string[];
}

/**
 * The app's routes by path, matched with Hono's own router, so an error reply can say what a
 * path does take: the methods of a path called with another one (405 + Allow), the body type of
 * a route called with another Content-Type (415). Built on first use: every route is
 * registered by then.
 */
export class RouteTable {
  #router: TrieRouter<RouteEntry> | undefined;

  constructor(private readonly app: OpenAPIHono<HonoEnv>) {}

  /** The methods some route serves at this path (HEAD wherever GET is: Hono answers it). */
  allowedMethods(path: string): string[] {
    const methods = new Set(this.#match(path).map((route) => route.method));
    if (methods.has("GET")) methods.add("HEAD");
    return [...methods].sort();
  }

  /** The media types the route at `method path` declares for its body ([] when unknown). */
  bodyTypes(method: string, path: string): string[] {
    return this.#match(path).find((route) => route.method === method)?.bodyTypes ?? [];
  }

  #match(path: string): RouteEntry[] {
    this.#router ??= this.#build();
    // Every route is stored under ALL, so one lookup finds the routes of every method.
    return this.#router.match(METHOD_NAME_ALL, path)[0].map(([route]) => route);
  }

  #build(): TrieRouter<RouteEntry> {
    const bodyTypes = new Map<string, string[]>();
    for (const definition of this.app.openAPIRegistry.definitions) {
      if (definition.type !== "route") continue;
      const { method, path, request } = definition.route;
      const honoPath = path.replaceAll(/\{([^}]+)\}/g, ":$1");
      bodyTypes.set(
        `${method.toUpperCase()} ${honoPath}`,
        Object.keys(request?.body?.content ?? {}),
      );
    }
    const router = new TrieRouter<RouteEntry>();
    const seen = new Set<string>();
    for (const { method, path } of this.app.routes) {
      // ALL entries are middleware (`app.use`), not routes.
      const key = `${method} ${path}`;
      if (method === METHOD_NAME_ALL || seen.has(key)) continue;
      seen.add(key);
      router.add(METHOD_NAME_ALL, path, { method, bodyTypes: bodyTypes.get(key) ?? [] });
    }
    return router;
  }
}

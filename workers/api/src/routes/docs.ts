import type { OpenAPIHono } from "@hono/zod-openapi";
import { Scalar } from "@scalar/hono-api-reference";
import type { HonoEnv } from "../http/hono-env.ts";

/** `/openapi.json` is generated from the route schemas; `/docs` renders it (Scalar). */
export function registerDocs(app: OpenAPIHono<HonoEnv>) {
  app.openAPIRegistry.registerComponent("securitySchemes", "apiKey", {
    type: "http",
    scheme: "bearer",
    description: "A project API key: `Authorization: Bearer qry_…`",
  });
  app.openAPIRegistry.registerComponent("securitySchemes", "adminToken", {
    type: "http",
    scheme: "bearer",
    description: "The deployment's ADMIN_TOKEN",
  });
  app.doc31("/openapi.json", (c) => ({
    openapi: "3.1.0",
    info: {
      title: "Quarry API",
      version: "1.0.0",
      description:
        'Datasets of text: ingest documents, search them, and serve grounded completions with logs and feedback. Errors are `{"error":{"code","message","request_id"}}`.',
    },
    servers: [{ url: new URL(c.req.url).origin }],
  }));
  app.get("/docs", Scalar({ url: "/openapi.json", pageTitle: "Quarry API reference" }));
}

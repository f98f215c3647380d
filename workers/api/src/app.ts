import { OpenAPIHono } from "@hono/zod-openapi";
import type { Config } from "./env.ts";
import { errorResponse, handleError } from "./http/errors.ts";
import type { HonoEnv } from "./http/hono-env.ts";
import { RouteTable } from "./http/route-table.ts";
import { storableUrl } from "./http/storable-input.ts";
import {
  explainUnsupportedMediaType,
  methodNotAllowed,
  validationHook,
} from "./http/validation.ts";
import {
  requireAdmin,
  requireApiKey,
  requireOwnedDataset,
  requireOwnedEndpoint,
} from "./middleware/auth.ts";
import { jsonBodyLimit } from "./middleware/body-limit.ts";
import { requestId } from "./middleware/request-id.ts";
import { securityHeaders } from "./middleware/security-headers.ts";
import { services } from "./middleware/services.ts";
import { registerAdmin } from "./routes/admin.ts";
import { registerCompletions } from "./routes/completions.ts";
import { registerConsole } from "./routes/console.ts";
import { registerDatasets } from "./routes/datasets.ts";
import { registerDocs } from "./routes/docs.ts";
import { registerDocuments } from "./routes/documents.ts";
import { registerEndpoints } from "./routes/endpoints.ts";
import { registerHealth } from "./routes/health.ts";
import { registerLogs } from "./routes/logs.ts";
import { registerRows } from "./routes/rows.ts";
import { registerSearch } from "./routes/search.ts";
import { registerUploads } from "./routes/upload.ts";

/** The one app factory. Auth runs before routing-level validation, so 401 beats 400. */
export function createApp(config: (env: HonoEnv["Bindings"]) => Config) {
  const app = new OpenAPIHono<HonoEnv>({ defaultHook: validationHook });
  app.use("*", requestId);
  app.use("*", securityHeaders);
  app.use("*", services(config));
  app.use("/admin/*", requireAdmin);
  app.use("/api/*", requireApiKey);
  app.use("/endpoints/*", requireApiKey);
  app.use("*", storableUrl);
  for (const path of ["/api/datasets/:id", "/api/datasets/:id/*"])
    app.use(path, requireOwnedDataset);
  for (const path of ["/api/endpoints/:id", "/api/endpoints/:id/*", "/endpoints/:id/*"]) {
    app.use(path, requireOwnedEndpoint);
  }

  app.use("*", jsonBodyLimit);

  registerHealth(app);
  registerDocs(app);
  registerConsole(app);
  registerAdmin(app);
  registerDatasets(app);
  registerDocuments(app);
  registerRows(app);
  registerSearch(app);
  registerUploads(app);
  registerEndpoints(app);
  registerCompletions(app);
  registerLogs(app);

  const routes = new RouteTable(app);
  app.notFound((c) => {
    const allowed = routes.allowedMethods(c.req.path);
    if (allowed.length > 0) return methodNotAllowed(c, allowed);
    return errorResponse(c, "not_found", `No route for ${c.req.method} ${c.req.path}`);
  });
  app.onError((err, c) => handleError(explainUnsupportedMediaType(err, c, routes), c));
  return app;
}

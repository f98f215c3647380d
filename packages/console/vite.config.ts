import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

/**
 * The console is served by the api worker under `/console/` (Workers Static Assets; see
 * workers/api/scripts/console-assets.mjs, which runs this build into .build/api-assets/console).
 * `pnpm --filter @quarry/console dev` serves it with hot reload and proxies the API to a running
 * `pnpm dev` stack (QUARRY_API, default http://127.0.0.1:8787).
 */
const api = process.env.QUARRY_API ?? "http://127.0.0.1:8787";

export default defineConfig({
  base: "/console/",
  plugins: [react()],
  build: {
    outDir: "../../.build/api-assets/console",
    emptyOutDir: true,
    // No inline scripts or data: URLs: the console's CSP allows its own origin only.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
  },
  server: {
    proxy: Object.fromEntries(
      ["/api", "/admin", "/endpoints", "/health", "/openapi.json"].map((p) => [p, api]),
    ),
  },
});

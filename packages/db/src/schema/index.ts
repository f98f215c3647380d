export * from "./api-keys.ts";
export * from "./datasets.ts";
export * from "./documents.ts";
export * from "./endpoints.ts";
export * from "./keyword-stats.ts";
export * from "./logs.ts";
export * from "./projects.ts";
export * from "./rows.ts";

export * from "./database.ts";
export * from "./r2-file-store.ts";

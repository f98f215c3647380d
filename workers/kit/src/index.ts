export * from "./database.ts";
export * from "./dns-over-https.ts";
export * from "./r2-file-store.ts";
export * from "./r2-source-reader.ts";

export * from "./database.ts";
export * from "./graph-build-session.ts";
export * from "./node-dns-resolver.ts";
export * from "./provider-env.ts";
export * from "./queue-sender.ts";
export * from "./r2-file-store.ts";
export * from "./r2-source-reader.ts";
export * from "./worker-config.ts";

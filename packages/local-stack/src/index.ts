export * from "./embedded-database.ts";
export * from "./free-port.ts";
export * from "./native-postgres/index.ts";
export * from "./native-proxy/index.ts";
export * from "./native-proxy/native-database.ts";
export * from "./pg-server/index.ts";
export * from "./stack.ts";
export * from "./tuning-vars.ts";

export * from "./embedded-database.ts";
export * from "./pg-server/index.ts";
export * from "./stack.ts";
export * from "./free-port.ts";

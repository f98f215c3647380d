export * from "./embedded-database.ts";
export * from "./free-port.ts";
export * from "./pg-server/index.ts";
export * from "./stack.ts";

export * from "./builtin-variables.ts";
export * from "./request-variables.ts";
export * from "./template.ts";

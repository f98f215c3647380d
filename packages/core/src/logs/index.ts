export * from "./comment-on-log.ts";
export * from "./list-logs.ts";
export * from "./log-views.ts";
export * from "./rate-logs.ts";
export * from "./require-log.ts";

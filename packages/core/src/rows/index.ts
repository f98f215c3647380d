export * from "./delete-row.ts";
export * from "./list-rows.ts";
export * from "./row-input.ts";
export * from "./row-metadata.ts";
export * from "./row-view.ts";
export * from "./table-rows.ts";
export * from "./update-row.ts";
export * from "./write-rows.ts";

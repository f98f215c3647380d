export * from "./document-filtered-search.ts";
export * from "./search-documents.ts";
export * from "./search-indexes.ts";
export * from "./search-params.ts";
export * from "./search-results.ts";
export * from "./search-rows.ts";
export * from "./vector-backlog.ts";
export * from "./vector-index-requests.ts";

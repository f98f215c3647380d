import { z } from "zod";
import { parseInput } from "../shared/parse-input.ts";
import { assertKnownParameters } from "./list-logs-input.ts";
import { LogFiltersInput } from "./log-filters-input.ts";

export const LOG_EXPORT_FORMATS = ["jsonl", "csv"] as const;
export type LogExportFormat = (typeof LOG_EXPORT_FORMATS)[number];

/** The log export: E7's filters, every matching log, as JSON Lines (default) or CSV. */
export const ExportLogsInput = LogFiltersInput.extend({
  format: z.enum(LOG_EXPORT_FORMATS, { error: "must be jsonl or csv" }).default("jsonl"),
});
export type ExportLogsInput = z.output<typeof ExportLogsInput>;

export function parseExportLogsParams(params: Record<string, unknown>): ExportLogsInput {
  assertKnownParameters(params, Object.keys(ExportLogsInput.shape));
  return parseInput(ExportLogsInput, params, "query");
}

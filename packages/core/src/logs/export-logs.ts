import { logs } from "@quarry/db";
import { and, getTableColumns } from "drizzle-orm";
import { attachmentDisposition } from "../documents/content-disposition.ts";
import { requireEndpoint } from "../endpoints/require-endpoint.ts";
import type { ProjectContext } from "../shared/context.ts";
import { commentsOfLogs } from "./comments-of-logs.ts";
import type { ExportLogsInput, LogExportFormat } from "./export-logs-input.ts";
import { exportLines, exportPreamble, toLogExportRecord } from "./log-export-records.ts";
import {
  LOG_CURSOR_AT,
  type LogCursor,
  logFilterCondition,
  NEWEST_LOGS_FIRST,
  olderThan,
} from "./log-filters.ts";
import type { LogRecord } from "./log-views.ts";

/** Logs read per query: one chunk of the stream. */
export const LOG_EXPORT_BATCH = 500;

const CONTENT_TYPES: Record<LogExportFormat, string> = {
  jsonl: "application/x-ndjson; charset=utf-8",
  csv: "text/csv; charset=utf-8; header=present",
};

export interface LogExport {
  contentType: string;
  contentDisposition: string;
  /** the records, produced as the reader pulls them */
  body: ReadableStream<Uint8Array>;
  /** settles when the body is finished, failed or cancelled: the database is needed until then */
  finished: Promise<void>;
}

/**
 * Every log of the endpoint that matches E7's filters, newest first, one record per log with
 * its rating and comments (docs/api.md#log-export). Nothing is held beyond one batch: each
 * pull of the body reads the next `batchSize` logs after the last one sent (keyset on the
 * E7 order, so a 100k-log export is 200 index range reads, not growing offsets) and their
 * comments, and hands them on. The endpoint is checked before anything is streamed, so a bad
 * id is an ordinary 401/404.
 */
export async function exportLogs(
  ctx: ProjectContext,
  endpointId: string,
  input: ExportLogsInput,
  { batchSize = LOG_EXPORT_BATCH }: { batchSize?: number } = {},
): Promise<LogExport> {
  const endpoint = await requireEndpoint(ctx, endpointId);
  const filter = logFilterCondition(endpoint, input);
  const encoder = new TextEncoder();
  let after: LogCursor | null = null;
  let preamble = exportPreamble(input.format);
  let settle: () => void = () => {};
  const finished = new Promise<void>((resolve) => {
    settle = resolve;
  });

  const nextBatch = async (): Promise<string | null> => {
    const found = await ctx.db
      .select({ ...getTableColumns(logs), cursor: LOG_CURSOR_AT })
      .from(logs)
      .where(after ? and(filter, olderThan(after)) : filter)
      .orderBy(...NEWEST_LOGS_FIRST)
      .limit(batchSize);
    const last = found.at(-1);
    if (!last) return null;
    after = { at: last.cursor, id: last.id };
    const comments = await commentsOfLogs(
      ctx,
      found.map((log) => log.id),
    );
    const records = found.map((log: LogRecord) =>
      toLogExportRecord(log, comments.get(log.id) ?? []),
    );
    return exportLines(input.format, records);
  };

  const body = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        try {
          const lines = await nextBatch();
          const text = preamble + (lines ?? "");
          preamble = "";
          if (text !== "") controller.enqueue(encoder.encode(text));
          if (lines === null) {
            controller.close();
            settle();
          }
        } catch (error) {
          controller.error(error);
          settle();
        }
      },
      cancel() {
        settle();
      },
    },
    // Nothing is read ahead of the reader: memory stays at one batch.
    { highWaterMark: 0 },
  );
  const name = `${endpoint.name || endpoint.id}-logs.${input.format}`;
  return {
    contentType: CONTENT_TYPES[input.format],
    contentDisposition: attachmentDisposition(name),
    body,
    finished,
  };
}

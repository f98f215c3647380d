import { keepPreviousData, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, ok } from "../../api/client.ts";
import {
  exportLogsQuery,
  LOG_PAGE_SIZE,
  type LogFilters,
  type LogQuery,
  listLogsQuery,
  writeLogQuery,
} from "./log-filters.ts";
import type { LogListing } from "./log-view.ts";

/**
 * The log review's reads and writes: E7 (one filtered page), E15 (ratings), E10 (comments) and
 * the export route. Ratings and comments update the cached page in place instead of refetching
 * it: a log rated under "unrated" stays on screen until the reviewer moves on, so the cursor
 * never jumps under their fingers.
 */
const logsKey = (endpointId: string) => ["logs", endpointId] as const;

export function useLogsPage(endpointId: string, query: LogQuery) {
  return useQuery({
    queryKey: [...logsKey(endpointId), writeLogQuery(query).toString()],
    queryFn: ({ signal }) =>
      ok(
        api.GET("/endpoints/{id}/logs", {
          params: { path: { id: endpointId }, query: listLogsQuery(query) },
          signal,
        }),
      ),
    placeholderData: keepPreviousData,
    enabled: endpointId !== "",
  });
}

/** E7 answers a page, not a total: there is a next page while a page comes back full. */
export function hasNextPage(shown: number): boolean {
  return shown >= LOG_PAGE_SIZE;
}

export function useRateLogs(endpointId: string) {
  const queries = useQueryClient();
  return useMutation({
    mutationFn: ({ ids, rating }: { ids: string[]; rating: boolean | null }) =>
      ok(
        api.PATCH("/endpoints/{id}/logs", {
          params: { path: { id: endpointId } },
          body:
            ids.length === 1
              ? { usage_id: ids[0]!, positive_rating: rating }
              : { logs: ids.map((usage_id) => ({ usage_id, positive_rating: rating })) },
        }),
      ),
    onSuccess: (_rated, { ids, rating }) => {
      queries.setQueriesData<LogListing[]>({ queryKey: logsKey(endpointId) }, (page) =>
        page?.map((log) => (ids.includes(log.id) ? { ...log, positive_rating: rating } : log)),
      );
    },
  });
}

export function useCommentOnLog(endpointId: string) {
  const queries = useQueryClient();
  return useMutation({
    mutationFn: ({ logId, comment }: { logId: string; comment: string }) =>
      ok(
        api.POST("/endpoints/{id}/logs/{log_id}/comments", {
          params: { path: { id: endpointId, log_id: logId } },
          body: { comment },
        }),
      ),
    onSuccess: (log) => {
      queries.setQueriesData<LogListing[]>({ queryKey: logsKey(endpointId) }, (page) =>
        page?.map((entry) => (entry.id === log.id ? { ...entry, comments: log.comments } : entry)),
      );
    },
  });
}

/**
 * Downloads the filtered logs from the export route (issue 16, item 7). The key travels in
 * the Authorization header, which a plain link cannot send, so the file is fetched (streamed
 * into a Blob, which the browser may keep on disk) and handed to the browser as a download.
 */
export async function downloadLogs(
  endpointId: string,
  filters: LogFilters,
  format: "jsonl" | "csv",
): Promise<void> {
  const blob = await ok(
    api.GET("/endpoints/{id}/logs/export", {
      params: { path: { id: endpointId }, query: exportLogsQuery(filters, format) },
      parseAs: "blob",
    }),
  );
  const link = document.createElement("a");
  link.href = URL.createObjectURL(blob);
  link.download = `logs-${endpointId}.${format}`;
  document.body.append(link);
  link.click();
  link.remove();
  // The browser has taken the file once the click is handled.
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}

export function useEndpointList() {
  return useQuery({
    queryKey: ["endpoints"],
    queryFn: ({ signal }) =>
      ok(api.GET("/api/endpoints", { params: { query: { page_size: 1000 } }, signal })),
  });
}

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { api, ok } from "../../api/client.ts";
import type { components } from "../../api/schema";
import { usePagedQuery } from "../../components/use-paged-query.ts";

/** Endpoints (docs/api.md#endpoints): each save is a new deployment. */
export type Endpoint = components["schemas"]["Endpoint"];
export type CreateEndpoint = components["schemas"]["CreateEndpoint"];
export type SearchBlock = components["schemas"]["SearchBlock"];

export const ENDPOINT_PAGE_SIZE = 50;

export function useEndpoints() {
  return usePagedQuery(ENDPOINT_PAGE_SIZE, (offset) => ({
    queryKey: ["endpoints", "page", offset],
    queryFn: ({ signal }) =>
      ok(
        api.GET("/api/endpoints", {
          params: { query: { offset, page_size: ENDPOINT_PAGE_SIZE } },
          signal,
        }),
      ),
  }));
}

export function useEndpoint(id: string) {
  return useQuery({
    queryKey: ["endpoint", id],
    queryFn: ({ signal }) =>
      ok(api.GET("/api/endpoints/{id}", { params: { path: { id } }, signal })),
  });
}

/** Datasets a search block can read (the first 1,000: a picker, not a browser). */
export function useDatasetChoices() {
  return useQuery({
    queryKey: ["datasets", "choices"],
    queryFn: ({ signal }) =>
      ok(api.GET("/api/datasets", { params: { query: { page_size: 1000 } }, signal })),
  });
}

export function useSaveEndpoint(id: string | undefined) {
  const queries = useQueryClient();
  return useMutation({
    mutationFn: (body: CreateEndpoint) =>
      id === undefined
        ? ok(api.POST("/api/endpoints", { body }))
        : ok(api.PATCH("/api/endpoints/{id}", { params: { path: { id } }, body })),
    onSuccess: (saved) => {
      queries.setQueryData(["endpoint", saved.id], saved);
      queries.invalidateQueries({ queryKey: ["endpoints"] });
    },
  });
}

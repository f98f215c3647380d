import { z } from "zod";

export const MAX_NAME_LENGTH = 200;
export const MAX_RESOURCE_ID_LENGTH = 128;

/** The name of a project, key, dataset or endpoint: trimmed, never blank. */
export const ResourceName = z.string().trim().min(1).max(MAX_NAME_LENGTH);

/** An id a body refers to (a dataset's, in a search block). */
export const ResourceId = z.string().min(1).max(MAX_RESOURCE_ID_LENGTH);

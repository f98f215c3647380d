import type { MetadataColumnDefinition, MetadataColumnType } from "@quarry/db";
import { BadRequestError } from "../shared/errors.ts";
import { SYSTEM_METADATA_KEYS } from "../shared/system-metadata.ts";

export type MetadataValue = string | number | boolean | string[];
export type UserMetadata = Record<string, MetadataValue>;

/** What the service itself records on every row (docs/api.md#service-metadata-keys). */
export interface SystemMetadata {
  rowId: number;
  documentId: string;
  url?: string;
}

export const MAX_METADATA_KEYS = 64;
export const MAX_METADATA_KEY_LENGTH = 128;
export const MAX_METADATA_STRING_LENGTH = 4096;
export const MAX_METADATA_LIST_LENGTH = 256;

/**
 * Validates user metadata: string, finite number, boolean or array of strings per key, and
 * for the keys the dataset declares in `metadata_columns`, exactly the declared type — a
 * `"2024"` under a `number` column would silently drop out of range filters. Undeclared keys
 * take any of the four. `null` is never a value (a declared column is left out when it has
 * none, as CSV ingestion leaves out empty cells). System keys in the input are dropped, not
 * refused: the service's values always win, and a row read from E6 can be sent back unchanged.
 */
export function validateUserMetadata(
  value: unknown,
  path: string,
  declared: readonly MetadataColumnDefinition[],
): UserMetadata {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new BadRequestError("must be an object", path);
  }
  const entries = Object.entries(value);
  if (entries.length > MAX_METADATA_KEYS) {
    throw new BadRequestError(`takes at most ${MAX_METADATA_KEYS} keys`, path);
  }
  const types = new Map(declared.map((c) => [c.name, c.type]));
  const out: UserMetadata = {};
  for (const [key, item] of entries) {
    const at = `${path}.${key}`;
    if (SYSTEM_METADATA_KEYS.has(key)) continue;
    if (key.length === 0 || key.length > MAX_METADATA_KEY_LENGTH || key.startsWith("$")) {
      throw new BadRequestError(
        `keys must be 1 to ${MAX_METADATA_KEY_LENGTH} characters and not start with '$'`,
        at,
      );
    }
    const type = types.get(key);
    if (type !== undefined && !hasMetadataType(item, type)) {
      throw new BadRequestError(
        item === null
          ? `expected ${type}, not null (leave the key out when there is no value)`
          : `expected ${type}`,
        at,
      );
    }
    out[key] = metadataValue(item, at);
  }
  return out;
}

/** Whether a value is of a declared metadata column type (no coercion: `"2024"` is no number). */
export function hasMetadataType(value: unknown, type: MetadataColumnType): boolean {
  switch (type) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number";
    case "boolean":
      return typeof value === "boolean";
    case "string[]":
      return Array.isArray(value) && value.every((item) => typeof item === "string");
  }
}

function metadataValue(value: unknown, path: string): MetadataValue {
  if (typeof value === "string") return boundedString(value, path);
  if (typeof value === "boolean") return value;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new BadRequestError("must be a finite number", path);
    return value;
  }
  if (Array.isArray(value)) {
    if (value.length > MAX_METADATA_LIST_LENGTH) {
      throw new BadRequestError(`lists take at most ${MAX_METADATA_LIST_LENGTH} strings`, path);
    }
    return value.map((item, i) => {
      if (typeof item !== "string") {
        throw new BadRequestError("lists may only hold strings", `${path}[${i}]`);
      }
      return boundedString(item, `${path}[${i}]`);
    });
  }
  const types = "must be a string, a number, a boolean or an array of strings";
  if (value === null) {
    throw new BadRequestError(
      `${types}, not null (leave the key out when there is no value)`,
      path,
    );
  }
  throw new BadRequestError(types, path);
}

function boundedString(value: string, path: string): string {
  if (value.length > MAX_METADATA_STRING_LENGTH) {
    throw new BadRequestError(`is longer than ${MAX_METADATA_STRING_LENGTH} characters`, path);
  }
  return value;
}

/** The stored metadata of a row: user keys first, then the service's keys, which win. */
export function rowMetadata(user: UserMetadata, system: SystemMetadata): Record<string, unknown> {
  const out: Record<string, unknown> = {
    ...user,
    rowId: system.rowId,
    documentId: system.documentId,
  };
  if (system.url !== undefined) out.url = system.url;
  return out;
}

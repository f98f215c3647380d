import type { MetadataColumnDefinition, MetadataColumnType } from "@quarry/db";
import { z } from "zod";
import { BadRequestError } from "../shared/errors.ts";
import { SYSTEM_METADATA_KEYS } from "../shared/system-metadata.ts";

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

const VALUE_TYPES = "must be a string, a number, a boolean or an array of strings";
const NOT_NULL = "not null (leave the key out when there is no value)";
const longer = (max: number) => ({ error: `is longer than ${max} characters` });

/**
 * One user metadata value: string, finite number, boolean or array of strings. `null` is
 * never a value (a declared column is left out when it has none, as CSV ingestion leaves
 * out empty cells). A list item that is no string is named by its index.
 */
export const MetadataValue = z.preprocess(
  (value, ctx) => {
    const bad = Array.isArray(value) ? value.findIndex((item) => typeof item !== "string") : -1;
    if (bad === -1) return value;
    ctx.issues.push({
      code: "custom",
      message: "lists may only hold strings",
      path: [bad],
      input: value,
    });
    return z.NEVER;
  },
  z.union(
    [
      z.string().max(MAX_METADATA_STRING_LENGTH, longer(MAX_METADATA_STRING_LENGTH)),
      z.number(),
      z.boolean(),
      z
        .array(z.string().max(MAX_METADATA_STRING_LENGTH, longer(MAX_METADATA_STRING_LENGTH)))
        .max(MAX_METADATA_LIST_LENGTH, {
          error: `lists take at most ${MAX_METADATA_LIST_LENGTH} strings`,
        }),
    ],
    { error: (issue) => (issue.input === null ? `${VALUE_TYPES}, ${NOT_NULL}` : VALUE_TYPES) },
  ),
);
export type MetadataValue = z.output<typeof MetadataValue>;

/**
 * User metadata: at most 64 keys of 1 to 128 characters, none starting with `$` (the filter
 * language's operators). System keys pass here and are dropped by `userMetadataOf`: the
 * service's values always win, and a row read from E6 can be sent back unchanged.
 */
export const UserMetadataInput = z
  .record(z.string(), MetadataValue, {
    error: (issue) => (issue.code === "invalid_type" ? "must be an object" : undefined),
  })
  .superRefine((value, ctx) => {
    const keys = Object.keys(value);
    if (keys.length > MAX_METADATA_KEYS) {
      ctx.addIssue({ code: "custom", message: `takes at most ${MAX_METADATA_KEYS} keys` });
    }
    for (const key of keys) {
      if (key.length === 0 || key.length > MAX_METADATA_KEY_LENGTH || key.startsWith("$")) {
        ctx.addIssue({
          code: "custom",
          message: `keys must be 1 to ${MAX_METADATA_KEY_LENGTH} characters and not start with '$'`,
          path: [key],
        });
      }
    }
  });
export type UserMetadata = Record<string, MetadataValue>;

/**
 * The rule that depends on the dataset: keys it declares in `metadata_columns` must have
 * exactly the declared type (a `"2024"` under a `number` column would silently drop out of
 * range filters); undeclared keys take any of the four. Returns the metadata without the
 * service's keys.
 */
export function userMetadataOf(
  metadata: Readonly<Record<string, unknown>>,
  path: string,
  declared: readonly MetadataColumnDefinition[],
): UserMetadata {
  const types = new Map(declared.map((c) => [c.name, c.type]));
  const out: UserMetadata = {};
  for (const [key, item] of Object.entries(metadata)) {
    if (SYSTEM_METADATA_KEYS.has(key)) continue;
    const type = types.get(key);
    if (type !== undefined && !hasMetadataType(item, type)) {
      const expected = `expected ${type}`;
      throw new BadRequestError(
        item === null ? `${expected}, ${NOT_NULL}` : expected,
        `${path}.${key}`,
      );
    }
    out[key] = item as MetadataValue;
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

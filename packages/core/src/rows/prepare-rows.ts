import type { DatasetRecord } from "../datasets/dataset-view.ts";
import { embedTexts } from "../embedding/embed-texts.ts";
import type { ProjectContext } from "../shared/context.ts";
import { embeddedColumn, type RowInput } from "./row-input.ts";
import type { UserMetadata } from "./row-metadata.ts";

/** A row ready to store: embedded (when it has text in the embedded column) and keyworded. */
export interface PreparedRow {
  data: Record<string, string>;
  metadata: UserMetadata;
  embedding: number[] | null;
  /** what the keyword index holds: the embedded text, else every data value */
  keywordText: string;
}

/**
 * Embeds the rows' embedded column before any write, so a provider failure leaves the
 * database untouched. `documentMetadata` goes onto every row; a row's own keys win.
 */
export async function prepareRows(
  ctx: ProjectContext,
  dataset: DatasetRecord,
  inputs: RowInput[],
  documentMetadata: UserMetadata = {},
  signal?: AbortSignal,
): Promise<PreparedRow[]> {
  const column = embeddedColumn(dataset);
  const texts = inputs.map((row) => embeddableText(row.data, column));
  const toEmbed = texts.filter((t): t is string => t !== null);
  const vectors = await embedTexts(ctx, dataset, toEmbed, signal);
  let next = 0;
  return inputs.map((row, i) => {
    const text = texts[i] ?? null;
    return {
      data: row.data,
      metadata: { ...documentMetadata, ...row.metadata },
      embedding: text === null ? null : (vectors[next++] ?? null),
      keywordText: text ?? Object.values(row.data).join("\n"),
    };
  });
}

/** The text to embed, or null: rows without text in the embedded column stay unembedded. */
export function embeddableText(data: Record<string, string>, column: string | null): string | null {
  if (column === null) return null;
  const text = data[column];
  return text !== undefined && text.trim() !== "" ? text : null;
}

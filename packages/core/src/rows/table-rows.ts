import type { DatasetRecord } from "../datasets/dataset-view.ts";
import type { RowInput } from "./row-input.ts";
import { MAX_CELL_LENGTH } from "./row-input.ts";
import type { MetadataValue, UserMetadata } from "./row-metadata.ts";

/**
 * Rows from a parsed table (CSV), by E9's rules (docs/api.md#e9-upload): every column but the
 * dataset's declared metadata columns becomes a data column (`text`, when present, is the one
 * embedded); cells of declared metadata columns become typed metadata. Empty cells are left out.
 */
export function tableToRowInputs(
  dataset: DatasetRecord,
  records: Record<string, string>[],
): RowInput[] {
  const metadataTypes = new Map(dataset.metadataColumns.map((c) => [c.name, c.type]));
  const out: RowInput[] = [];
  for (const record of records) {
    const data: Record<string, string> = {};
    const metadata: UserMetadata = {};
    for (const [column, cell] of Object.entries(record)) {
      const type = metadataTypes.get(column);
      if (type === undefined) {
        data[column] = cell.length > MAX_CELL_LENGTH ? cell.slice(0, MAX_CELL_LENGTH) : cell;
        continue;
      }
      const value = typedCell(cell.trim(), type);
      if (value !== undefined) metadata[column] = value;
    }
    // A record with nothing in it (a blank line papaparse kept) is not a row.
    if (Object.values(data).some((v) => v.trim() !== "") || Object.keys(metadata).length > 0) {
      out.push({ data, metadata });
    }
  }
  return out;
}

/**
 * A cell as its declared type; a cell that is not of that type is kept as text rather than
 * failing the whole file (a CSV is typed by convention, not by contract).
 */
function typedCell(cell: string, type: string): MetadataValue | undefined {
  if (cell === "") return undefined;
  switch (type) {
    case "number": {
      const n = Number(cell);
      return Number.isFinite(n) ? n : cell;
    }
    case "boolean":
      if (/^(true|yes|1)$/i.test(cell)) return true;
      if (/^(false|no|0)$/i.test(cell)) return false;
      return cell;
    case "string[]":
      return cell
        .split(/[;|]/)
        .map((s) => s.trim())
        .filter((s) => s !== "");
    default:
      return cell;
  }
}

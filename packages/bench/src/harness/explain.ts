import type pg from "pg";
import { round } from "./stats.ts";

/** What `EXPLAIN (ANALYZE, FORMAT JSON)` says about one query, in a line a person can read. */
export interface PlanSummary {
  /** the node tree flattened depth-first: "Limit > Sort > Bitmap Heap Scan on rows > …" */
  plan: string;
  planning_ms: number;
  execution_ms: number;
  /** rows the top node returned */
  rows: number;
  indexes: string[];
  /**
   * A write's triggers (foreign keys among them), each one's milliseconds over all its calls;
   * absent when none ran
   */
  triggers_ms?: Record<string, number>;
}

interface TriggerTiming {
  "Trigger Name": string;
  Time: number;
}

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Actual Rows"?: number;
  "Sort Method"?: string;
  Plans?: PlanNode[];
}

export async function explainAnalyze(
  client: pg.Client,
  sql: string,
  params: unknown[],
): Promise<PlanSummary> {
  const result = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params);
  const raw = Object.values(result.rows[0] ?? {})[0];
  const doc = (typeof raw === "string" ? JSON.parse(raw) : raw) as {
    Plan: PlanNode;
    "Planning Time": number;
    "Execution Time": number;
    Triggers?: TriggerTiming[];
  }[];
  const top = doc[0];
  if (!top) throw new Error("EXPLAIN returned no plan");
  const steps: string[] = [];
  const indexes = new Set<string>();
  const walk = (node: PlanNode) => {
    let step = node["Node Type"];
    if (node["Relation Name"]) step += ` on ${node["Relation Name"]}`;
    if (node["Index Name"]) {
      step += ` using ${node["Index Name"]}`;
      indexes.add(node["Index Name"]);
    }
    if (node["Sort Method"]) step += ` (${node["Sort Method"]})`;
    steps.push(`${step} [${node["Actual Rows"] ?? "?"} rows]`);
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(top.Plan);
  return {
    plan: steps.join(" > "),
    planning_ms: round(top["Planning Time"], 3),
    execution_ms: round(top["Execution Time"], 3),
    rows: top.Plan["Actual Rows"] ?? 0,
    indexes: [...indexes],
    ...(top.Triggers?.length ? { triggers_ms: triggerTimes(top.Triggers) } : {}),
  };
}

function triggerTimes(triggers: TriggerTiming[]): Record<string, number> {
  const times: Record<string, number> = {};
  for (const t of triggers) times[t["Trigger Name"]] = round(t.Time, 3);
  return times;
}

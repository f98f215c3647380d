/** A node of `EXPLAIN (ANALYZE, FORMAT JSON)`, with the fields the tests read. */
export interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  /** the planner's estimate of the rows the node returns */
  "Plan Rows": number;
  "Actual Rows": number;
  "Actual Loops": number;
  "Rows Removed by Filter"?: number;
  /** a node's conditions, as EXPLAIN prints them */
  Filter?: string;
  "Index Cond"?: string;
  "Recheck Cond"?: string;
  /** the columns the node returns (EXPLAIN VERBOSE only) */
  Output?: string[];
  Plans?: PlanNode[];
}

/** The JSON plan's nodes, root first, flattened. */
export function planNodes(explained: { "QUERY PLAN": { Plan: PlanNode }[] }): PlanNode[] {
  const nodes: PlanNode[] = [];
  const walk = (node: PlanNode) => {
    nodes.push(node);
    for (const child of node.Plans ?? []) walk(child);
  };
  walk(explained["QUERY PLAN"][0]!.Plan);
  return nodes;
}

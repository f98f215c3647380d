/**
 * A benchmark's operation mix: each operation's share in percent, keyed by operation, in the
 * order the reports list them (the keys are the operations, so the two cannot drift apart).
 */
export type Mix<Op extends string> = Readonly<Record<Op, number>>;

/** The mix's operations, in its order. */
export const operationsOf = <Op extends string>(mix: Mix<Op>): Op[] => Object.keys(mix) as Op[];

/** Picks an operation by the mix from a uniform `r` in [0, 1); the first one should rounding run past the end. */
export function pickByMix<Op extends string>(mix: Mix<Op>, r: number): Op {
  const operations = operationsOf(mix);
  let left = r * 100;
  for (const op of operations) {
    left -= mix[op];
    if (left < 0) return op;
  }
  return operations[0] as Op;
}

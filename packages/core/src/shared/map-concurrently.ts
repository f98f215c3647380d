/**
 * `map` with at most `limit` calls in flight, results in input order. After the first failure
 * no further item is started; the calls already in flight are awaited, and then the first
 * failure is thrown. So when this settles, nothing it started is still running: a caller that
 * reacts to the failure (records it, retries the whole) never races its own leftovers.
 */
export async function mapConcurrently<T, R>(
  items: readonly T[],
  limit: number,
  map: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const lane = async () => {
    while (!failure && next < items.length) {
      const index = next++;
      try {
        results[index] = await map(items[index] as T, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failure) throw failure.error;
  return results;
}

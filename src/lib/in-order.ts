// Array map and filter whose callback awaits (the store), run one item after another: the same
// order of side effects as the synchronous loop, and one statement at a time on the connection.

export async function mapInOrder<T, R>(
  items: readonly T[],
  fn: (item: T, index: number) => Promise<R> | R,
): Promise<R[]> {
  const out: R[] = []
  for (let i = 0; i < items.length; i++) out.push(await fn(items[i] as T, i))
  return out
}

export async function filterInOrder<T>(
  items: readonly T[],
  keep: (item: T, index: number) => Promise<boolean> | boolean,
): Promise<T[]> {
  const out: T[] = []
  for (let i = 0; i < items.length; i++) if (await keep(items[i] as T, i)) out.push(items[i] as T)
  return out
}

/** A value, or a promise of it: what an interface returns when some implementations read the store. */
export type Awaitable<T> = T | Promise<T>

/** Waits until `read` answers something `done` accepts, reading every 100 ms; fails after `withinMs` with the last answer. */
export const eventually = async <A>(read: () => Promise<A>, done: (a: A) => boolean, withinMs = 30_000): Promise<A> => {
  const deadline = Date.now() + withinMs
  for (;;) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline) throw new Error(`still ${JSON.stringify(value, (_, v) => (typeof v === "bigint" ? v.toString() : v))}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

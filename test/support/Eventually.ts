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

/** Polls `probe` every 100 ms until it answers something; fails naming `what` after `withinMs`. */
export const eventuallyFound = async <A>(what: string, probe: () => Promise<A | undefined>, withinMs = 30_000): Promise<A> => {
  const deadline = Date.now() + withinMs
  for (;;) {
    const found = await probe()
    if (found !== undefined) return found
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

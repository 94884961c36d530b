/**
 * `Secp256k1.ts`, loaded at its first use and then kept: loading it compiles its WebAssembly, which
 * a process that never signs or recovers should not pay for at start-up, and a dynamic `import()`
 * on every call would go through the module loader each time (on the event loop, per transaction).
 *
 * @module
 */
let loading: Promise<typeof import("./Secp256k1.ts")> | undefined

/** The loaded module (the same promise for every caller). */
export const secp256k1 = (): Promise<typeof import("./Secp256k1.ts")> => (loading ??= import("./Secp256k1.ts"))

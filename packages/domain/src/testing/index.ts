/**
 * In-memory adapters and deterministic services for unit tests of hosts that embed the domain.
 *
 * @module
 */
export * from "./MemoryStore.ts"
export * from "./TestPorts.ts"

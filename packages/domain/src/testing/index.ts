/**
 * In-memory adapters and deterministic services for unit tests of hosts that embed the domain.
 *
 * @module
 */
export * from "./MemoryIdempotencyStore.ts"
export * from "./MemoryMerchantRepository.ts"
export * from "./MemoryPayoutRepository.ts"
export * from "./MemoryPayoutStore.ts"
export * from "./MemoryPlanRepository.ts"
export * from "./MemoryRefundRepository.ts"
export * from "./MemorySettlementRepository.ts"
export * from "./MemorySubscriptionChain.ts"
export * from "./MemorySubscriptionRepository.ts"
export * from "./MemoryStore.ts"
export * from "./SubscriptionFixtures.ts"
export * from "./TestPorts.ts"
export * from "./GatewayPorts.ts"
export * from "./DataCollectionPorts.ts"
export * from "./MemoryEscrowChain.ts"

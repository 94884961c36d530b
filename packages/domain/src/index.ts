/**
 * @paygate/domain: the pure core of paygate. Ids, money, CAIP identifiers, quotes, the payment
 * status machine, contract error codes, wire schemas, ports and use cases. Depends on `effect`
 * only; hosts provide the ports (persistence, chains, pricing, screening, credentials).
 *
 * @module
 */
export * as Caip from "./caip/index.ts"
export * as Money from "./money/index.ts"
export * as Wire from "./wire/index.ts"
export * from "./errors/ApiErrors.ts"
export * from "./errors/ErrorCode.ts"
export * from "./errors/ErrorResponse.ts"
export * from "./ids/IdGenerator.ts"
export * from "./ids/Ids.ts"
export * from "./payment/OutboxEvent.ts"
export * from "./payment/Payment.ts"
export * from "./payment/PaymentEventType.ts"
export * from "./payment/PaymentStatus.ts"
export * from "./payment/StatusMachine.ts"
export * from "./ports/ChainGateway.ts"
export * from "./ports/CredentialStore.ts"
export * from "./ports/EventOutbox.ts"
export * from "./ports/PaymentRepository.ts"
export * from "./ports/PriceOracle.ts"
export * from "./ports/SanctionsScreening.ts"
export * from "./quote/Quote.ts"
export * from "./usecases/Access.ts"
export * from "./usecases/Payments.ts"
export * from "./usecases/PaymentSettings.ts"

/**
 * The operator's services, apart from the API's so that `npm run admin` loads neither the HTTP
 * package nor the gateway's use cases: each command is a process of its own.
 *
 * @module
 */
import { IdGenerator, Merchants, PayoutApprovals, PayoutRetries, ReceiptRefunds } from "@paygate/domain"
import { Layer } from "effect"
import { SecureRandom } from "effect/crypto"
import { CredentialAdmin, Database, LedgerOpener, SqlPersistence } from "@paygate/adapters"

/**
 * What the operator CLI (`@paygate/cli`) runs on: credentials admin, merchants, the retries of failed
 * settlements, refunds and receipt refunds, the approvals of payouts held over a limit, and the SQL
 * stores, over the operator's database (`DATABASE_URL`, else the embedded PGlite, through the running
 * service's socket when it runs: `Database.layerForOperator`).
 */
export const operator = Layer.mergeAll(
  CredentialAdmin.layer,
  LedgerOpener.layer,
  Merchants.layer,
  PayoutRetries.layer,
  PayoutApprovals.layer,
  ReceiptRefunds.layer
).pipe(
  Layer.provideMerge(Layer.mergeAll(SqlPersistence.layer, IdGenerator.layer)),
  Layer.provide(SecureRandom.layerWebCrypto),
  Layer.provideMerge(Database.layerForOperator)
)

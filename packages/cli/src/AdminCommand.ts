import { type Mode, Role } from "@paygate/domain"
import { Schema } from "effect"
import { parseArgs } from "node:util"

/** A parsed operator command. */
export type AdminCommand =
  | { readonly _tag: "PartnerCreate"; readonly name: string; readonly sandbox: boolean; readonly version: string | undefined }
  | { readonly _tag: "PartnerList" }
  | { readonly _tag: "PartnerVersion"; readonly partnerId: string; readonly version: string }
  | { readonly _tag: "MerchantList"; readonly partnerId: string | undefined; readonly mode: Mode | undefined }
  | { readonly _tag: "MerchantCreate"; readonly partnerId: string; readonly name: string; readonly sandbox: boolean }
  | { readonly _tag: "KeyCreate"; readonly partnerId: string; readonly mode: "live" | "sandbox" | undefined }
  | { readonly _tag: "KeyRevoke"; readonly keyId: string }
  | { readonly _tag: "TeamInvite"; readonly partnerId: string; readonly email: string; readonly role: Role; readonly mode: Mode | undefined }
  | { readonly _tag: "KeyList"; readonly partnerId: string | undefined }
  | { readonly _tag: "AppCreate"; readonly name: string; readonly sandbox: boolean }
  | { readonly _tag: "AppList" }
  | { readonly _tag: "AppRevoke"; readonly appId: string }
  /** `threshold`: a decimal in major units of the payment's currency, or `null` for the default (1000.00). */
  | { readonly _tag: "PartnerThreshold"; readonly partnerId: string; readonly threshold: string | null }
  | { readonly _tag: "PayoutRetry"; readonly kind: "refund" | "settlement"; readonly paymentId: string }
  | { readonly _tag: "PayoutApprove"; readonly kind: "refund" | "settlement"; readonly paymentId: string }
  | { readonly _tag: "ReceiptRefundRetry"; readonly receiptId: string }
  | { readonly _tag: "ReceiptList" }
  | { readonly _tag: "ReceiptRefund"; readonly receiptId: string }
  | { readonly _tag: "DepositSweep"; readonly chainId: string; readonly address: string; readonly asset: string }
  | { readonly _tag: "LedgerReport" }
  | { readonly _tag: "LedgerAudit" }
  /** `chainId`: one chain (CAIP-2), or every configured chain. */
  | { readonly _tag: "LedgerOpen"; readonly chainId: string | undefined }
  | { readonly _tag: "Preflight" }
  | { readonly _tag: "FactoryDeploy"; readonly network: string }
  | { readonly _tag: "VaultDeploy"; readonly network: string }
  | { readonly _tag: "EscrowDeploy"; readonly network: string }

/** Usage text shown on errors and with `--help`. */
export const usage = `Usage: npm run admin -- <command>     (npm run -s admin -- …: stdout holds only the JSON)

  partner create --name N [--sandbox] [--version V]   → {"partnerId", "apiKey"}
  partner list                                        → [{"partnerId", "name", "pinnedVersion", "createdAt",
                                                          "activeKeys": {"live", "sandbox"}}]
  partner version --partner ID --version V            → {"partnerId", "pinnedVersion"}
      requests without Svc-Version use V, a published stable version (2026-02-18)
  partner threshold --partner ID --threshold T        → {"partnerId", "dataCollectionThreshold"}
      buyer data is collected for payments of at least T (e.g. 250.00) in the payment's
      currency; T = default: the contract's 1000.00
  merchant list [--partner ID] [--sandbox | --live]   → [{"merchantId", "partnerId", "mode", "name", "deleted", "createdAt"}]
  merchant create --partner ID --name N [--sandbox]   → {"merchantId", "partnerId", "mode", "name"}
      a live merchant unless --sandbox (partners also create theirs: POST /v1/merchants)
  key create --partner ID [--sandbox | --live]        → {"keyId", "apiKey", "mode"}
  key revoke --key ID                                 → {"keyId", "revoked": true}
  key list [--partner ID]                             → [{"keyId", "kind", "ownerId", "mode", "hint", "createdAt", "revokedAt"}]
  team invite --partner ID --email E --role R [--sandbox | --live]
                                                      → {"invitationId", "email", "role", "mode", "url", "expiresAt"}
      a one-time dashboard link (7 days) for a member with role R (owner, developer, operator,
      viewer): no mail is sent, hand it over; its host is PUBLIC_URL (else http://localhost:3000)
  app create --name N [--sandbox]                     → {"appId", "walletApiKey"}
  app revoke --app ID                                 → {"appId", "revoked": true}
      its App-Id and wallet keys stop working
  app list                                            → [{"appId", "name", "mode", "revoked", "createdAt", "revokedAt"}]
  refund retry --payment ID                           → {"paymentId", "kind": "refund", "status": "pending"}
  settlement retry --payment ID                       → {"paymentId", "kind": "settlement", "status": "pending"}
      a failed refund (settlement) is pending again and the worker pays it: still owed to the
      payer (merchant); its last transaction is read from the chain first, so nothing is sent twice
  payout approve --payment ID --kind refund|settlement
                                                      → {"paymentId", "kind", "status": "pending", "approved": [{"leg", "value", "reason"}]}
      lets the worker send a refund (settlement) held over a payout limit (docs/going-live.md,
      "Limits"); recorded in the partner's audit log as "operator"
  receipt retry-refund --receipt ID                   → {"receiptId", "status": "pending", "value"}
      the same for a receipt's failed refund
  receipt list                                        → the newest 100 unmatched receipts no partner owns (as GET /v1/receipts)
  receipt refund --receipt ID                         → that receipt, its refund pending: sent back to its sender
  deposit sweep --chain C --address A --asset X       → {"chainId", "address", "asset", "due": true}
      sweeps token X (CAIP-19, any ERC-20, one the service does not accept included) from
      deposit address A on chain C (CAIP-2) to the collection address
  ledger report                                       → [{"chainId", "asset", "kind", "address", "block", "ledger", "chain",
                                                          "difference", "runAt"}]
      the worker's latest reconciliation of each chain: every collection and deposit address,
      its balance in the ledger and on chain at that block (base units); see docs/ledger.md
  ledger audit                                        → {"checked": {"transactions", "receipts", "payouts", "receiptRefunds"}, "findings": []}
      the ledger against the service's own records (every transaction balanced; every receipt,
      completed payout and receipt refund posted once for its value); a line per disagreement
  ledger open [--chain C]                             → [{"chainId", "asset", "kind", "address", "block", "ledger", "chain",
                                                          "opened", "outcome"}]
      posts, once per address and token, what the chain holds beyond the ledger (funds held before
      the ledger existed) as its opening balance; a second run posts nothing; see docs/ledger.md
  preflight                                           → a checklist, one line per check (not JSON)
      checks a live configuration before going live; exit 1 when a check fails
  deposit-factory deploy --network NAME               → {"network", "depositFactory", "variable", "then"}
      deploys the DepositFactoryV2 of a named network (PAYGATE_NETWORKS), owned by the executor and
      sweeping to the collection address, paid by the executor; "then" says what to set (and where
      a first DepositFactory configured before goes, so that its addresses are still swept)
  subscription-vault deploy --network NAME            → {"network", "subscriptionVault", "variable", "then"}
      deploys a SubscriptionVault over Permit2's canonical address on a named network, paid by the
      executor (refused where Permit2 is not there); "then" says what to set to take subscriptions
  payment-escrow deploy --network NAME                → {"network", "paymentEscrow", "variable", "then"}
      deploys a PaymentEscrow on a named network, paid by the executor; "then" says what to set to
      take held payments (capture: "manual")

A partner made with --sandbox is a sandbox partner: its keys are sandbox keys, and --live is refused.
Other partners' keys are live unless --sandbox. Lists never show a secret: only its id. Times are ISO 8601 (UTC).
Uses DATABASE_URL when set, else the embedded database in PAYGATE_DATA_DIR (./data/pglite),
through the running service when one is started on it.`

const options = {
  name: { type: "string" },
  sandbox: { type: "boolean" },
  live: { type: "boolean" },
  version: { type: "string" },
  partner: { type: "string" },
  key: { type: "string" },
  app: { type: "string" },
  threshold: { type: "string" },
  kind: { type: "string" },
  payment: { type: "string" },
  receipt: { type: "string" },
  chain: { type: "string" },
  address: { type: "string" },
  asset: { type: "string" },
  network: { type: "string" },
  email: { type: "string" },
  role: { type: "string" }
} as const

type Flag = keyof typeof options

// The flags each command takes; any other is refused rather than silently ignored.
const flagsOf: Record<string, ReadonlyArray<Flag>> = {
  "partner create": ["name", "sandbox", "live", "version"],
  "partner list": [],
  "partner version": ["partner", "version"],
  "partner threshold": ["partner", "threshold"],
  "merchant list": ["partner", "sandbox", "live"],
  "merchant create": ["partner", "name", "sandbox", "live"],
  "key create": ["partner", "sandbox", "live"],
  "key revoke": ["key"],
  "key list": ["partner"],
  "team invite": ["partner", "email", "role", "sandbox", "live"],
  "app create": ["name", "sandbox", "live"],
  "app revoke": ["app"],
  "app list": [],
  "refund retry": ["payment"],
  "settlement retry": ["payment"],
  "payout approve": ["payment", "kind"],
  "receipt retry-refund": ["receipt"],
  "receipt list": [],
  "receipt refund": ["receipt"],
  "deposit sweep": ["chain", "address", "asset"],
  "ledger report": [],
  "ledger audit": [],
  "ledger open": ["chain"],
  preflight: [],
  "deposit-factory deploy": ["network"],
  "subscription-vault deploy": ["network"],
  "payment-escrow deploy": ["network"]
}

type Invalid = { readonly _tag: "Invalid"; readonly message: string }

/** Parses argv (after `--`) into a command, or answers why it cannot. */
export const parseAdminCommand = (argv: ReadonlyArray<string>): AdminCommand | Invalid => {
  let parsed
  try {
    parsed = parseArgs({ args: [...argv], allowPositionals: true, strict: true, options })
  } catch (error) {
    return { _tag: "Invalid", message: error instanceof Error ? error.message : String(error) }
  }
  const { positionals, values } = parsed
  const command = positionals.join(" ")
  const allowed = flagsOf[command]
  if (allowed === undefined) return { _tag: "Invalid", message: command === "" ? "No command given." : `Unknown command "${command}".` }
  const stray = (Object.keys(values) as Array<Flag>).find((flag) => !allowed.includes(flag))
  if (stray !== undefined) return { _tag: "Invalid", message: `${command} does not take --${stray}.` }
  if (values.sandbox === true && values.live === true) return { _tag: "Invalid", message: "Give --sandbox or --live, not both." }
  const blank = (Object.keys(values) as Array<Flag>).find((flag) => typeof values[flag] === "string" && values[flag].trim() === "")
  if (blank !== undefined) return { _tag: "Invalid", message: `--${blank} needs a value.` }
  const sandbox = values.sandbox === true
  const given = (flag: Exclude<Flag, "sandbox" | "live">) => values[flag]?.trim()
  const needs = (message: string): Invalid => ({ _tag: "Invalid", message })
  switch (command) {
    case "partner create": {
      const name = given("name")
      return name === undefined ? needs("partner create needs --name.") : { _tag: "PartnerCreate", name, sandbox, version: given("version") }
    }
    case "partner list":
      return { _tag: "PartnerList" }
    case "partner version": {
      const partnerId = given("partner")
      const version = given("version")
      return partnerId === undefined || version === undefined
        ? needs("partner version needs --partner and --version (a published stable version, e.g. 2026-02-18).")
        : { _tag: "PartnerVersion", partnerId, version }
    }
    case "partner threshold": {
      const partnerId = given("partner")
      const threshold = given("threshold")
      return partnerId === undefined || threshold === undefined
        ? needs("partner threshold needs --partner and --threshold (a decimal, or default).")
        : { _tag: "PartnerThreshold", partnerId, threshold: threshold === "default" ? null : threshold }
    }
    case "merchant list": {
      const mode = sandbox ? "sandbox" : values.live === true ? "live" : undefined
      return { _tag: "MerchantList", partnerId: given("partner"), mode }
    }
    case "merchant create": {
      const [partnerId, name] = [given("partner"), given("name")]
      return partnerId === undefined || name === undefined
        ? needs("merchant create needs --partner and --name.")
        : { _tag: "MerchantCreate", partnerId, name, sandbox }
    }
    case "key create": {
      const partnerId = given("partner")
      const mode = sandbox ? "sandbox" : values.live === true ? "live" : undefined
      return partnerId === undefined ? needs("key create needs --partner.") : { _tag: "KeyCreate", partnerId, mode }
    }
    case "key revoke": {
      const keyId = given("key")
      return keyId === undefined ? needs("key revoke needs --key.") : { _tag: "KeyRevoke", keyId }
    }
    case "key list":
      return { _tag: "KeyList", partnerId: given("partner") }
    case "team invite": {
      const [partnerId, email, role] = [given("partner"), given("email"), given("role")]
      if (partnerId === undefined || email === undefined || role === undefined) return needs("team invite needs --partner, --email and --role.")
      if (!Schema.is(Role)(role)) return needs("--role is one of owner, developer, operator, viewer.")
      return { _tag: "TeamInvite", partnerId, email, role, mode: sandbox ? "sandbox" : values.live === true ? "live" : undefined }
    }
    case "app create": {
      const name = given("name")
      return name === undefined ? needs("app create needs --name.") : { _tag: "AppCreate", name, sandbox }
    }
    case "app revoke": {
      const appId = given("app")
      return appId === undefined ? needs("app revoke needs --app.") : { _tag: "AppRevoke", appId }
    }
    case "app list":
      return { _tag: "AppList" }
    case "refund retry":
    case "settlement retry": {
      const paymentId = given("payment")
      const kind = command === "refund retry" ? "refund" : "settlement"
      return paymentId === undefined ? needs(`${command} needs --payment.`) : { _tag: "PayoutRetry", kind, paymentId }
    }
    case "payout approve": {
      const paymentId = given("payment")
      const kind = given("kind")
      if (paymentId === undefined) return needs("payout approve needs --payment.")
      return kind === "refund" || kind === "settlement"
        ? { _tag: "PayoutApprove", kind, paymentId }
        : needs("payout approve needs --kind refund or --kind settlement.")
    }
    case "receipt retry-refund": {
      const receiptId = given("receipt")
      return receiptId === undefined ? needs("receipt retry-refund needs --receipt.") : { _tag: "ReceiptRefundRetry", receiptId }
    }
    case "receipt list":
      return { _tag: "ReceiptList" }
    case "receipt refund": {
      const receiptId = given("receipt")
      return receiptId === undefined ? needs("receipt refund needs --receipt.") : { _tag: "ReceiptRefund", receiptId }
    }
    case "deposit sweep": {
      const [chainId, address, asset] = [given("chain"), given("address"), given("asset")]
      return chainId === undefined || address === undefined || asset === undefined
        ? needs("deposit sweep needs --chain, --address and --asset.")
        : { _tag: "DepositSweep", chainId, address, asset }
    }
    case "ledger report":
      return { _tag: "LedgerReport" }
    case "ledger audit":
      return { _tag: "LedgerAudit" }
    case "ledger open":
      return { _tag: "LedgerOpen", chainId: given("chain") }
    case "preflight":
      return { _tag: "Preflight" }
    case "deposit-factory deploy": {
      const network = given("network")?.toLowerCase()
      return network === undefined ? needs("deposit-factory deploy needs --network (e.g. base).") : { _tag: "FactoryDeploy", network }
    }
    case "subscription-vault deploy": {
      const network = given("network")?.toLowerCase()
      return network === undefined ? needs("subscription-vault deploy needs --network (e.g. base).") : { _tag: "VaultDeploy", network }
    }
    case "payment-escrow deploy": {
      const network = given("network")?.toLowerCase()
      return network === undefined ? needs("payment-escrow deploy needs --network (e.g. base).") : { _tag: "EscrowDeploy", network }
    }
    default:
      return needs(`Unknown command "${command}".`)
  }
}

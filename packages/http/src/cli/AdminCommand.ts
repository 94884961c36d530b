import { parseArgs } from "node:util"

/** A parsed operator command. */
export type AdminCommand =
  | { readonly _tag: "PartnerCreate"; readonly name: string; readonly sandbox: boolean; readonly version: string | undefined }
  | { readonly _tag: "KeyCreate"; readonly partnerId: string; readonly sandbox: boolean }
  | { readonly _tag: "KeyRevoke"; readonly keyId: string }
  | { readonly _tag: "AppCreate"; readonly name: string; readonly sandbox: boolean }
  /** `threshold`: a decimal in major units of the payment's currency, or `null` for the default (1000.00). */
  | { readonly _tag: "PartnerThreshold"; readonly partnerId: string; readonly threshold: string | null }

/** Usage text shown on errors and with `--help`. */
export const usage = `Usage: npm run admin -- <command>

  partner create --name N [--sandbox] [--version V]   → {"partnerId", "apiKey"}
  key create --partner ID [--sandbox]                 → {"keyId", "apiKey"}
  key revoke --key ID                                 → {"keyId", "revoked": true}
  app create --name N [--sandbox]                     → {"appId", "walletApiKey"}
  partner threshold --partner ID --threshold T        → {"partnerId", "dataCollectionThreshold"}
      buyer data is collected for payments of at least T (e.g. 250.00) in the payment's
      currency; T = default: the contract's 1000.00

Uses DATABASE_URL when set, else the embedded database in PAYGATE_DATA_DIR (./data/pglite),
through the running service when one is started on it.`

/** Parses argv (after `--`) into a command, or answers why it cannot. */
export const parseAdminCommand = (argv: ReadonlyArray<string>): AdminCommand | { readonly _tag: "Invalid"; readonly message: string } => {
  let parsed
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        name: { type: "string" },
        sandbox: { type: "boolean", default: false },
        version: { type: "string" },
        partner: { type: "string" },
        key: { type: "string" },
        threshold: { type: "string" }
      }
    })
  } catch (error) {
    return { _tag: "Invalid", message: error instanceof Error ? error.message : String(error) }
  }
  const { positionals, values } = parsed
  const need = (flag: "name" | "partner" | "key" | "threshold") => {
    const value = values[flag]?.trim()
    return value === undefined || value === "" ? undefined : value
  }
  const command = positionals.join(" ")
  switch (command) {
    case "partner create": {
      const name = need("name")
      return name === undefined
        ? { _tag: "Invalid", message: "partner create needs --name." }
        : { _tag: "PartnerCreate", name, sandbox: values.sandbox, version: values.version }
    }
    case "key create": {
      const partnerId = need("partner")
      return partnerId === undefined
        ? { _tag: "Invalid", message: "key create needs --partner." }
        : { _tag: "KeyCreate", partnerId, sandbox: values.sandbox }
    }
    case "key revoke": {
      const keyId = need("key")
      return keyId === undefined ? { _tag: "Invalid", message: "key revoke needs --key." } : { _tag: "KeyRevoke", keyId }
    }
    case "app create": {
      const name = need("name")
      return name === undefined
        ? { _tag: "Invalid", message: "app create needs --name." }
        : { _tag: "AppCreate", name, sandbox: values.sandbox }
    }
    case "partner threshold": {
      const partnerId = need("partner")
      const threshold = need("threshold")
      return partnerId === undefined || threshold === undefined
        ? { _tag: "Invalid", message: "partner threshold needs --partner and --threshold (a decimal, or default)." }
        : { _tag: "PartnerThreshold", partnerId, threshold: threshold === "default" ? null : threshold }
    }
    default:
      return { _tag: "Invalid", message: command === "" ? "No command given." : `Unknown command "${command}".` }
  }
}

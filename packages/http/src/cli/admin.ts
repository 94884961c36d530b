import { CredentialAdmin, Database, Migrations } from "@paygate/adapters"
import { IdGenerator } from "@paygate/domain"
import { Cause, Effect, Exit, Layer, References } from "effect"
import { SecureRandom } from "effect/crypto"
import { parseAdminCommand, usage } from "./AdminCommand.ts"
import { AdminFailure, runAdmin } from "./RunAdmin.ts"

// stdout carries exactly one JSON value (an object, or an array for lists); everything else goes to stderr.
const argv = process.argv.slice(2)
if (argv.includes("--help") || argv.includes("-h")) {
  console.error(usage)
  process.exit(0)
}
const command = parseAdminCommand(argv)
if (command._tag === "Invalid") {
  console.error(`${command.message}\n\n${usage}`)
  process.exit(2)
}

const program = Migrations.run.pipe(
  Effect.andThen(runAdmin(command)),
  Effect.provide(CredentialAdmin.layer.pipe(
    Layer.provide(IdGenerator.layer),
    Layer.provide(SecureRandom.layerWebCrypto),
    Layer.provideMerge(Database.layerForOperator)
  )),
  Effect.provideService(References.MinimumLogLevel, "None")
)

const exit = await Effect.runPromiseExit(program)
if (Exit.isSuccess(exit)) {
  process.stdout.write(`${JSON.stringify(exit.value)}\n`)
  process.exit(0)
}
const failure = exit.cause.reasons.find(Cause.isFailReason)?.error
console.error(failure instanceof AdminFailure ? failure.message : `admin failed: ${Cause.pretty(exit.cause)}`)
process.exit(1)

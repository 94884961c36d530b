/**
 * The operator CLI as its process runs it (`npm run admin`, `app/admin.ts`): one command from the
 * arguments, run over `services` (`AdminServices` over the operator's database: the composition
 * root's `Operator.operator`) after pending migrations. stdout carries exactly one JSON value (an
 * object, or an array for lists); everything else goes to stderr. Exit code 0, 1 when the command
 * failed, 2 on a usage error.
 *
 * @module
 */
import { FailureLine, Migrations, Preflight } from "@paygate/adapters"
import { Effect, Exit, type Layer, References } from "effect"
import { parseAdminCommand, usage } from "./AdminCommand.ts"
import { AdminFailure, type AdminServices, runAdmin } from "./RunAdmin.ts"

/** Runs the command of `argv` and exits; see the module documentation. */
export const adminCli = async (
  argv: ReadonlyArray<string>,
  services: Layer.Layer<AdminServices, unknown>
): Promise<never> => {
  if (argv.includes("--help") || argv.includes("-h")) {
    console.error(usage)
    return process.exit(0)
  }
  const command = parseAdminCommand(argv)
  if (command._tag === "Invalid") {
    console.error(`${command.message}\n\n${usage}`)
    return process.exit(2)
  }
  if (command._tag === "Preflight") {
    const checks = await Effect.runPromise(Preflight.preflight(services).pipe(Effect.provideService(References.MinimumLogLevel, "None")))
    for (const check of checks) console.log(check.ok ? `✓ ${check.label}` : `✗ ${check.label} — fix: ${check.fix}`)
    const failures = checks.filter((check) => !check.ok).length
    console.log(failures === 0 ? "\nReady to go live." : `\n${failures} of ${checks.length} checks failed (docs/going-live.md).`)
    return process.exit(failures === 0 ? 0 : 1)
  }
  const program = Migrations.run.pipe(
    Effect.andThen(runAdmin(command)),
    Effect.provide(services),
    Effect.provideService(References.MinimumLogLevel, "None")
  )
  const exit = await Effect.runPromiseExit(program)
  if (Exit.isSuccess(exit)) {
    process.stdout.write(`${JSON.stringify(exit.value)}\n`)
    return process.exit(0)
  }
  const failure = FailureLine.failureOf(exit.cause)
  console.error(failure instanceof AdminFailure ? failure.message : `admin failed: ${FailureLine.failureLine(exit.cause)}`)
  return process.exit(1)
}

/** The parts of {@link adminCli}, for running a command in process (tests, embedding hosts). */
export { parseAdminCommand, runAdmin }

/** `npm run admin`: the operator CLI (`npm run admin -- --help`) over the operator's database. */
import { Application } from "@paygate/adapters"
import { adminCli } from "@paygate/cli"

await adminCli(process.argv.slice(2), Application.operator)

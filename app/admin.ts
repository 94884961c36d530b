/** `npm run admin`: the operator CLI (`npm run admin -- --help`) over the operator's database. */
import { adminCli } from "@paygate/cli"
import { operator } from "./Operator.ts"

await adminCli(process.argv.slice(2), operator)

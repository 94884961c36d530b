import { Context } from "effect"

/** The deployment the API serves: `staging` refuses live keys and credentials (API rules §2). */
export class Environment extends Context.Service<Environment, "production" | "staging">()("@paygate/http/Environment") {}

import { Context, type Option, type Redacted } from "effect"

/** The bearer token `GET /metrics` asks for; none, it asks for no credential. */
export class MetricsToken extends Context.Service<MetricsToken, Option.Option<Redacted.Redacted<string>>>()("@paygate/http/MetricsToken") {}

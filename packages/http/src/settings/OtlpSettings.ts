import { Context, type Option } from "effect"

/** The OpenTelemetry export as the host configured it (`Tracing`: the `OTEL_*` variables). */
export class OtlpSettings extends Context.Service<OtlpSettings, {
  /** Tracing off even with an endpoint. */
  readonly disabled: boolean
  /** The full traces URL; wins over {@link endpoint}. */
  readonly tracesEndpoint: Option.Option<string>
  /** The collector's base URL; `/v1/traces` is appended. */
  readonly endpoint: Option.Option<string>
  /** `service.name` of the spans. */
  readonly serviceName: string
  /** `key=value,…` sent with every export. */
  readonly headers: Option.Option<string>
  /** `key=value,…` added to the resource. */
  readonly resourceAttributes: Option.Option<string>
}>()("@paygate/http/OtlpSettings") {}

import { Context, type Option } from "effect"

/** The dashboard sessions' settings (`DashboardSessions`), as the host configured them. */
export class SessionSettings extends Context.Service<SessionSettings, {
  /** When an unused session ends (at least 1). */
  readonly idleSeconds: number
  /** When any session ends, after its sign-in (at least 1). */
  readonly maxSeconds: number
  /** Failed sign-ins allowed per minute from all clients together (also its burst). */
  readonly signInCeilingPerMinute: number
  /** The service's public address (`PUBLIC_URL`): https makes every cookie `Secure`, its origin is the dashboard's. */
  readonly publicUrl: Option.Option<string>
}>()("@paygate/http/SessionSettings") {}

/**
 * `webhook_deliveries` rows and `Delivery` values: the columns a delivery is read from and the
 * stored form of an attempt's request headers and answer (migration 0014).
 *
 * @module
 */
import { type AttemptRecord, Delivery } from "@paygate/domain"
import { Schema } from "effect"
import { fromJsonColumn, jsonText, toInt, toIntOrNull } from "../internal/Rows.ts"

const decodeDelivery = Schema.decodeUnknownSync(Delivery)

const columns = [
  "id",
  "event_id",
  "event_type",
  "endpoint_id",
  "status",
  "attempts",
  "next_attempt_at",
  "last_status_code",
  "last_duration_ms",
  "last_error",
  "last_request_headers",
  "last_response_headers",
  "last_response_body",
  "last_response_truncated",
  "redelivery",
  "created_at",
  "updated_at"
]

/** The columns selected for a delivery, qualified by `alias` when given. */
export const deliveryColumns = (alias?: string): string =>
  columns.map((column) => (alias === undefined ? column : `${alias}.${column}`)).join(", ")

const isTrue = (value: unknown) => value === true || value === "t"

/** The delivery of a row with {@link deliveryColumns}. */
export const deliveryFromRow = (row: Record<string, unknown>): Delivery =>
  decodeDelivery({
    id: row.id,
    eventId: row.event_id,
    eventType: row.event_type,
    endpointId: row.endpoint_id,
    status: row.status,
    attempts: toInt(row.attempts),
    nextAttemptAt: toIntOrNull(row.next_attempt_at),
    lastStatusCode: toIntOrNull(row.last_status_code),
    lastDurationMs: toIntOrNull(row.last_duration_ms),
    lastError: row.last_error ?? null,
    lastRequestHeaders: row.last_request_headers == null ? null : fromJsonColumn(row.last_request_headers),
    lastResponse: row.last_response_body == null ? null : {
      status: toInt(row.last_status_code),
      headers: fromJsonColumn(row.last_response_headers),
      body: row.last_response_body,
      truncated: isTrue(row.last_response_truncated)
    },
    redelivery: isTrue(row.redelivery),
    createdAt: toInt(row.created_at),
    updatedAt: toInt(row.updated_at)
  })

/** The stored form of an attempt's request headers and answer (all `null` when none came). */
export const exchangeValues = (attempt: AttemptRecord) => ({
  requestHeaders: jsonText(attempt.requestHeaders),
  responseHeaders: attempt.response === null ? null : jsonText(attempt.response.headers),
  responseBody: attempt.response?.body ?? null,
  responseTruncated: attempt.response?.truncated ?? null
})

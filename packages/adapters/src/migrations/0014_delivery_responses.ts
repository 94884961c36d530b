/**
 * Migration 0014: a delivery keeps what its latest attempt sent and what the receiver answered,
 * for the delivery log (`GET /v1/webhooks/{id}/deliveries`). The request's body is the event
 * (`outbox_events`); its headers are kept (`last_request_headers`, none secret). The answer's
 * status is `last_status_code`; a few of its headers, the start of its body (at most 2,048
 * characters, decoded and cleaned by the domain's `DeliveryExchange`) and whether it was cut are
 * kept together or not at all (no answer came).
 *
 * @module
 */

/** The statements of migration 0014, in order. */
export const statements: ReadonlyArray<string> = [
  `ALTER TABLE webhook_deliveries
    ADD COLUMN last_request_headers jsonb,
    ADD COLUMN last_response_headers jsonb,
    ADD COLUMN last_response_body text CHECK (char_length(last_response_body) <= 2048),
    ADD COLUMN last_response_truncated boolean,
    ADD CONSTRAINT webhook_deliveries_response CHECK (
      (last_response_body IS NULL) = (last_response_headers IS NULL)
      AND (last_response_body IS NULL) = (last_response_truncated IS NULL)
      AND (last_response_body IS NULL OR last_status_code IS NOT NULL)
    )`
]

-- Delivery confirmation of outbox rows: the relay confirms a dispatched row once it sees the row's RQ
-- job finished, and re-sends a row whose job went missing from Redis (e.g. a Redis that lost its data).
ALTER TABLE {schema}.outbox ADD COLUMN IF NOT EXISTS confirmed_at TIMESTAMPTZ;
ALTER TABLE {schema}.outbox ADD COLUMN IF NOT EXISTS checked_at TIMESTAMPTZ;
ALTER TABLE {schema}.outbox ADD COLUMN IF NOT EXISTS resent INTEGER NOT NULL DEFAULT 0;
-- rows dispatched before confirmation existed: their jobs' results have expired (result_ttl 1 h), so
-- only the recent ones are checked (and re-sent if missing; consumers are idempotent)
UPDATE {schema}.outbox SET confirmed_at = dispatched_at
 WHERE dispatched_at IS NOT NULL AND dispatched_at < now() - interval '1 hour';
CREATE INDEX IF NOT EXISTS outbox_unconfirmed_idx ON {schema}.outbox (checked_at NULLS FIRST, id)
 WHERE dispatched_at IS NOT NULL AND confirmed_at IS NULL;

-- Event store, snapshots, transactional outbox and processed-message log of one service schema.
CREATE TABLE IF NOT EXISTS {schema}.events (
    position     BIGSERIAL PRIMARY KEY,
    stream_id    TEXT        NOT NULL,
    version      INTEGER     NOT NULL CHECK (version > 0),
    event_id     UUID        NOT NULL UNIQUE,
    type         TEXT        NOT NULL,
    payload      JSONB       NOT NULL,
    metadata     JSONB       NOT NULL,
    prev_hash    TEXT        NOT NULL,
    hash         TEXT        NOT NULL,
    recorded_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    tx_id        XID8        NOT NULL DEFAULT pg_current_xact_id(),
    CONSTRAINT events_stream_version_key UNIQUE (stream_id, version)
);

CREATE INDEX IF NOT EXISTS events_feed_idx ON {schema}.events (tx_id, position);

CREATE TABLE IF NOT EXISTS {schema}.snapshots (
    stream_id  TEXT        NOT NULL,
    kind       TEXT        NOT NULL,
    version    INTEGER     NOT NULL,
    data       BYTEA       NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (stream_id, kind, version)
);

CREATE TABLE IF NOT EXISTS {schema}.outbox (
    id            BIGSERIAL PRIMARY KEY,
    queue         TEXT        NOT NULL,
    job           TEXT        NOT NULL,
    message       JSONB       NOT NULL,
    created_at    TIMESTAMPTZ NOT NULL DEFAULT now(),
    dispatched_at TIMESTAMPTZ,
    attempts      INTEGER     NOT NULL DEFAULT 0,
    last_error    TEXT
);
CREATE INDEX IF NOT EXISTS outbox_pending_idx ON {schema}.outbox (id) WHERE dispatched_at IS NULL;

CREATE TABLE IF NOT EXISTS {schema}.processed_messages (
    consumer     TEXT        NOT NULL,
    message_id   TEXT        NOT NULL,
    processed_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (consumer, message_id)
);

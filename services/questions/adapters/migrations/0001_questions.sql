-- Question bank (versioned, content-hashed packs) and the questions drawn for players and games.
-- The event store tables (events, snapshots, outbox, processed_messages) come from the shared set.
CREATE TABLE IF NOT EXISTS questions.packs (
    id               TEXT        NOT NULL,
    version          INTEGER     NOT NULL CHECK (version > 0),
    declared_version TEXT        NOT NULL,   -- the "version" the organiser wrote in the pack header
    title            TEXT        NOT NULL,
    licence          TEXT        NOT NULL,
    attribution      TEXT        NOT NULL,
    sample           BOOLEAN     NOT NULL,
    content_hash     TEXT        NOT NULL,
    question_count   INTEGER     NOT NULL,
    source_format    TEXT        NOT NULL CHECK (source_format IN ('json', 'csv', 'bundled')),
    data             JSONB       NOT NULL,   -- {"pack": header, "questions": [normalised rows]}
    created_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (id, version)
);

CREATE TABLE IF NOT EXISTS questions.drawn (
    id                 UUID        PRIMARY KEY,
    game_id            TEXT,
    request_no         INTEGER,
    message_id         TEXT,
    city               TEXT        NOT NULL,
    requested_category TEXT        NOT NULL,
    yellow_city        TEXT,
    selector           NUMERIC     NOT NULL,  -- any integer (derived from the game seed)
    question           JSONB       NOT NULL,  -- the served question, with its key and reveal
    generated          BOOLEAN     NOT NULL,
    reason             TEXT        NOT NULL,
    answer             JSONB,
    correct            BOOLEAN,
    reveal             JSONB,
    answered_at        TIMESTAMPTZ,
    created_at         TIMESTAMPTZ NOT NULL DEFAULT now(),
    CONSTRAINT drawn_request_key UNIQUE (game_id, request_no)
);

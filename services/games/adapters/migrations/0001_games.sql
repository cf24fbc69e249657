-- Read model of games (a projection of the event stream, kept in the same transaction),
-- the secret seeds, per-viewer redacted copies of events, and idempotency records.
CREATE TABLE IF NOT EXISTS games.games (
    id          UUID PRIMARY KEY,
    game_type   TEXT        NOT NULL,
    options     JSONB       NOT NULL,
    num_players INTEGER     NOT NULL,
    seats       JSONB       NOT NULL,
    status      TEXT        NOT NULL,
    version     INTEGER     NOT NULL,
    head_hash   TEXT        NOT NULL,
    to_move     JSONB       NOT NULL DEFAULT '[]',
    outcome     JSONB,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS games_status_idx ON games.games (status, created_at);
CREATE INDEX IF NOT EXISTS games_seats_idx ON games.games USING GIN (seats jsonb_path_ops);

CREATE TABLE IF NOT EXISTS games.game_secrets (
    game_id     UUID PRIMARY KEY REFERENCES games.games (id),
    server_seed BYTEA NOT NULL
);

CREATE TABLE IF NOT EXISTS games.event_views (
    game_id  UUID    NOT NULL,
    viewer   INTEGER NOT NULL,  -- seat number, or -1 for spectators
    version  INTEGER NOT NULL,
    type     TEXT    NOT NULL,
    payload  JSONB   NOT NULL,
    PRIMARY KEY (game_id, viewer, version)
);

CREATE TABLE IF NOT EXISTS games.idempotency (
    player_id    UUID        NOT NULL,
    key          TEXT        NOT NULL,
    game_id      UUID        NOT NULL,
    request_hash TEXT        NOT NULL,
    status       INTEGER     NOT NULL,
    body         JSONB       NOT NULL,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (player_id, key)
);

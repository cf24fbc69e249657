-- Matchmaking: queue tickets, the tables formed from them (queue, private and league tables, keyed
-- by the request id sent to the games service), and a read model of leagues (whose state is the
-- event stream ``league-<id>`` in matchmaking.events).
CREATE TABLE IF NOT EXISTS matchmaking.tickets (
    id            UUID PRIMARY KEY,
    player_id     UUID             NOT NULL,
    game_type     TEXT             NOT NULL,
    options       JSONB            NOT NULL,
    player_counts JSONB            NOT NULL,
    mode          TEXT             NOT NULL,
    pool          TEXT             NOT NULL,
    mu            DOUBLE PRECISION NOT NULL,
    sigma         DOUBLE PRECISION NOT NULL,
    rating_source TEXT             NOT NULL,
    status        TEXT             NOT NULL,
    table_id      TEXT,
    seat          INTEGER,
    team          INTEGER,
    game_id       UUID,
    created_at    TIMESTAMPTZ      NOT NULL DEFAULT now(),
    updated_at    TIMESTAMPTZ      NOT NULL DEFAULT now()
);
CREATE UNIQUE INDEX IF NOT EXISTS tickets_one_active_idx ON matchmaking.tickets (player_id)
    WHERE status IN ('waiting', 'matched');
CREATE INDEX IF NOT EXISTS tickets_waiting_idx ON matchmaking.tickets (created_at)
    WHERE status = 'waiting' AND table_id IS NULL;
CREATE INDEX IF NOT EXISTS tickets_table_idx ON matchmaking.tickets (table_id);

CREATE TABLE IF NOT EXISTS matchmaking.tables (
    request_id  TEXT PRIMARY KEY,
    kind        TEXT        NOT NULL,  -- queue | private | league
    game_type   TEXT        NOT NULL,
    options     JSONB       NOT NULL,
    size        INTEGER     NOT NULL,
    seats       JSONB       NOT NULL,  -- player ids in seat order (a private table fills up)
    teams       JSONB,
    reason      TEXT        NOT NULL DEFAULT '',
    invite_code TEXT UNIQUE,
    league_id   UUID,
    created_by  TEXT,
    status      TEXT        NOT NULL,  -- open | requested | created | finished | aborted
    game_id     UUID UNIQUE,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS matchmaking.leagues (
    id         UUID PRIMARY KEY,
    name       TEXT        NOT NULL,
    game_type  TEXT        NOT NULL,
    status     TEXT        NOT NULL,
    rounds     INTEGER     NOT NULL,
    seated     INTEGER     NOT NULL DEFAULT 0,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

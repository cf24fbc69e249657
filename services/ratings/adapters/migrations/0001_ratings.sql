-- Read models of the ratings service, kept in the same transaction as the events that explain them.
-- (The received messages and every rating adjustment are events in ratings.events.)

-- Every game the service heard of: rated, rejected (cannot be rated), aborted or voided.
CREATE TABLE IF NOT EXISTS ratings.games (
    game_id           TEXT PRIMARY KEY,
    game_type         TEXT,
    pool              TEXT,
    status            TEXT        NOT NULL CHECK (status IN ('rated', 'rejected', 'aborted', 'voided')),
    reason            TEXT,
    players           JSONB       NOT NULL DEFAULT '[]',
    finished_position BIGINT,  -- position of its GameFinishedReceived event: the rating order
    received_at       TIMESTAMPTZ NOT NULL DEFAULT now(),
    updated_at        TIMESTAMPTZ NOT NULL DEFAULT now()
);
CREATE INDEX IF NOT EXISTS games_pool_idx ON ratings.games (pool, finished_position);

-- One row per pool: how often it was recomputed (epoch) and how many games it rates.
CREATE TABLE IF NOT EXISTS ratings.pools (
    pool       TEXT PRIMARY KEY,
    epoch      INTEGER     NOT NULL DEFAULT 0,
    games      INTEGER     NOT NULL DEFAULT 0,
    updated_at TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Current rating per player and pool.
CREATE TABLE IF NOT EXISTS ratings.current (
    pool         TEXT             NOT NULL,
    player_id    TEXT             NOT NULL,
    mu           DOUBLE PRECISION NOT NULL,
    sigma        DOUBLE PRECISION NOT NULL,
    ordinal      DOUBLE PRECISION NOT NULL,
    games_played INTEGER          NOT NULL,
    last_game_id TEXT             NOT NULL,
    updated_at   TIMESTAMPTZ      NOT NULL DEFAULT now(),
    PRIMARY KEY (pool, player_id)
);
CREATE INDEX IF NOT EXISTS current_leaderboard_idx ON ratings.current (pool, ordinal DESC, player_id);
CREATE INDEX IF NOT EXISTS current_player_idx ON ratings.current (player_id);

-- Every adjustment of the pool's current epoch (the RatingAdjusted events, queryable).
CREATE TABLE IF NOT EXISTS ratings.history (
    pool              TEXT             NOT NULL,
    player_id         TEXT             NOT NULL,
    seq               INTEGER          NOT NULL,  -- games played after this game
    game_id           TEXT             NOT NULL,
    side              INTEGER          NOT NULL,
    rank              INTEGER          NOT NULL,
    mu_before         DOUBLE PRECISION NOT NULL,
    sigma_before      DOUBLE PRECISION NOT NULL,
    mu_after          DOUBLE PRECISION NOT NULL,
    sigma_after       DOUBLE PRECISION NOT NULL,
    finished_position BIGINT           NOT NULL,
    recorded_at       TIMESTAMPTZ      NOT NULL DEFAULT now(),
    PRIMARY KEY (pool, player_id, seq)
);
CREATE INDEX IF NOT EXISTS history_game_idx ON ratings.history (game_id);

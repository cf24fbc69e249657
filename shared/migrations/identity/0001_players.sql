-- Players and their bearer tokens (only a SHA-256 of the token is kept).
CREATE TABLE IF NOT EXISTS {schema}.players (
    id           UUID PRIMARY KEY,
    display_name TEXT        NOT NULL,
    token_hash   TEXT        NOT NULL UNIQUE,
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);

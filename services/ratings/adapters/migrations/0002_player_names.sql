-- Display names of players, kept from PlayerRegistered / PlayerRenamed messages (the newest
-- name_version wins, whatever order the messages arrive in).
CREATE TABLE IF NOT EXISTS ratings.player_names (
    player_id    TEXT PRIMARY KEY,
    display_name TEXT        NOT NULL,
    name_version INTEGER     NOT NULL,
    updated_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);

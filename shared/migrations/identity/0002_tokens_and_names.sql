-- Several bearer tokens per player (issued and revoked by the player) and a version per display name,
-- so consumers of PlayerRegistered/PlayerRenamed keep only the newest name whatever order they arrive in.
CREATE TABLE IF NOT EXISTS {schema}.tokens (
    token_hash TEXT PRIMARY KEY,
    player_id  UUID        NOT NULL REFERENCES {schema}.players (id),
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    revoked_at TIMESTAMPTZ
);
CREATE INDEX IF NOT EXISTS tokens_player_idx ON {schema}.tokens (player_id);

INSERT INTO {schema}.tokens (token_hash, player_id, created_at)
SELECT token_hash, id, created_at FROM {schema}.players WHERE token_hash IS NOT NULL
ON CONFLICT DO NOTHING;

-- players.token_hash is superseded by identity.tokens (kept, nullable, no longer written).
ALTER TABLE {schema}.players ALTER COLUMN token_hash DROP NOT NULL;
ALTER TABLE {schema}.players ADD COLUMN IF NOT EXISTS name_version INTEGER NOT NULL DEFAULT 1;

-- Players registered before names were sent: announce them once through the games outbox (identity
-- belongs to the games service). On a fresh database the outbox does not exist yet and nobody is registered.
DO $$
BEGIN
    IF to_regclass('games.outbox') IS NOT NULL THEN
        INSERT INTO games.outbox (queue, job, message)
        SELECT c.queue, c.job, jsonb_build_object(
            'message_id', p.id::text || ':name:' || p.name_version,
            'type', 'PlayerRegistered',
            'body', jsonb_build_object('player_id', p.id::text, 'display_name', p.display_name,
                                       'name_version', p.name_version,
                                       'created_at', to_char(p.created_at AT TIME ZONE 'UTC',
                                                             'YYYY-MM-DD"T"HH24:MI:SS"Z"')))
        FROM {schema}.players p
        CROSS JOIN (VALUES ('ratings', 'services.ratings.entrypoints.jobs.handle_message'),
                           ('matchmaking', 'services.matchmaking.entrypoints.jobs.handle_message')) AS c (queue, job);
    END IF;
END
$$;

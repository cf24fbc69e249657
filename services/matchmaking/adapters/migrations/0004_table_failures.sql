-- A table whose game the games service refused (GameCreationRefused): status 'failed' and why
-- ({reason, field, rule}); its tickets are 'failed' too, a league table waits for a re-seat.
ALTER TABLE matchmaking.tables ADD COLUMN IF NOT EXISTS failure JSONB;

-- When each game finished, as the games service recorded it (GameFinished's finished_at; the time the
-- message arrived for a message without one): the dates of a player's rating history and chart, which
-- stay the games' own dates when the pool is rebuilt (history.recorded_at is when a row was written).
ALTER TABLE ratings.games ADD COLUMN IF NOT EXISTS finished_at TIMESTAMPTZ;

-- Clocks (README "Clocks"): the earliest deadline among the running clocks of a clocked game, kept by
-- every commit (NULL: no clock, no clock running, or the game has ended); the ticker reads the due ones.
ALTER TABLE games.games ADD COLUMN IF NOT EXISTS clock_deadline TIMESTAMPTZ;
CREATE INDEX IF NOT EXISTS games_clock_deadline_idx ON games.games (clock_deadline)
    WHERE clock_deadline IS NOT NULL;

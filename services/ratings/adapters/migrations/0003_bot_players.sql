-- Bots are rated like players, in the same pools, and flagged: the level comes with their
-- PlayerRegistered message (README "Bots", "How bots are rated").
ALTER TABLE ratings.player_names ADD COLUMN IF NOT EXISTS bot_level TEXT;

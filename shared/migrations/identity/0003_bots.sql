-- Bots are players too: a bot account has its level (random, rules, strong) and a number per level;
-- humans have NULL in both. The account ids are fixed (shared/bots.py), so they are unique per level.
ALTER TABLE {schema}.players ADD COLUMN IF NOT EXISTS bot_level TEXT;
ALTER TABLE {schema}.players ADD COLUMN IF NOT EXISTS bot_number INTEGER;
CREATE UNIQUE INDEX IF NOT EXISTS players_bot_idx ON {schema}.players (bot_level, bot_number)
    WHERE bot_level IS NOT NULL;

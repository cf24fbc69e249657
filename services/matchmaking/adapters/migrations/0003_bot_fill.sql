-- A ticket may allow bots: after MATCHMAKING_BOT_FILL_AFTER seconds of waiting its table is filled
-- with bots of bot_level (README "Bots").
ALTER TABLE matchmaking.tickets ADD COLUMN IF NOT EXISTS allow_bots BOOLEAN NOT NULL DEFAULT false;
ALTER TABLE matchmaking.tickets ADD COLUMN IF NOT EXISTS bot_level TEXT NOT NULL DEFAULT 'rules';

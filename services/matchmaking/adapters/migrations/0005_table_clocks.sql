-- A ticket's, private table's or league table's clock (issue 17), as POST /v1/games takes it: the
-- normalized `clock` ({kind, ...}) and `timeout_policy`; null: no clock. Tickets meet only tickets
-- with the same clock.
ALTER TABLE matchmaking.tickets ADD COLUMN IF NOT EXISTS clock JSONB;
ALTER TABLE matchmaking.tickets ADD COLUMN IF NOT EXISTS timeout_policy TEXT;
ALTER TABLE matchmaking.tables ADD COLUMN IF NOT EXISTS clock JSONB;
ALTER TABLE matchmaking.tables ADD COLUMN IF NOT EXISTS timeout_policy TEXT;

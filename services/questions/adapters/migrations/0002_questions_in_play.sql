-- A game's question is "in play" from its draw until the game asks its next question or ends
-- (GameFinished / GameAborted): while it is, practice draws do not serve it and practice answers to an
-- earlier copy are refused, so the public API never reveals the key a running game waits on.
ALTER TABLE questions.drawn ADD COLUMN IF NOT EXISTS closed_at TIMESTAMPTZ;
-- games drawn before this column: all but each game's latest question are settled already
UPDATE questions.drawn d SET closed_at = d.created_at
 WHERE d.game_id IS NOT NULL AND d.closed_at IS NULL
   AND d.request_no < (SELECT max(l.request_no) FROM questions.drawn l WHERE l.game_id = d.game_id);
CREATE INDEX IF NOT EXISTS drawn_in_play ON questions.drawn ((question->'reveal'->>'source_id'))
 WHERE game_id IS NOT NULL AND closed_at IS NULL;

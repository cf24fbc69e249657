-- Issue 19: a move checks its bearer token inside its own transaction (so the move stays one round
-- trip, and a revoked token still stops working at once): raises SQLSTATE 28000
-- (invalid_authorization_specification) unless the token is live and belongs to the player.
CREATE OR REPLACE FUNCTION {schema}.require_token(p_hash TEXT, p_player UUID) RETURNS VOID
LANGUAGE plpgsql STABLE AS $$
BEGIN
    IF NOT EXISTS (
        SELECT 1 FROM {schema}.tokens WHERE token_hash = p_hash AND player_id = p_player AND revoked_at IS NULL
    ) THEN
        RAISE EXCEPTION 'the bearer token is not valid' USING ERRCODE = '28000';
    END IF;
END
$$;

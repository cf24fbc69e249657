-- Issue 19 item 1: every write of a move in ONE statement (one Bind/Execute/Sync, one round trip, its
-- own transaction when sent in autocommit): the bearer token's check, the Idempotency-Key's lock and
-- look-up, the events (sealed and hashed by the client; payload and metadata are the bytes the hash
-- covers), the outbox rows, the read model and the key's answer. Events and outbox rows come as one
-- JSON array each (one parameter: cheaper to send than an array per column). A concurrent writer at
-- the same version is caught by events_stream_version_key (SQLSTATE 23505, a 409 to the client); a
-- dead token raises 28000 (401); a key still held by a running request past p_key_wait raises 55P03
-- (409 in flight). Returns no row when it wrote, or the answer already stored under the key (and then
-- writes nothing).
CREATE OR REPLACE FUNCTION games.commit_move(
    p_game         TEXT,
    p_events       JSONB,     -- [{version, event_id, type, payload, metadata, prev_hash, hash}] in order
    p_outbox       JSONB,     -- [{queue, job, message}] in order
    p_seats        JSONB,     -- the read model's row after the move (GamesRepository.update_game)
    p_status       TEXT,
    p_version      INTEGER,
    p_head_hash    TEXT,
    p_to_move      JSONB,
    p_outcome      JSONB,
    p_deadline     TIMESTAMPTZ,
    p_player       TEXT,     -- the mover: whose token and key (NULL: neither)
    p_token_hash   TEXT,     -- the bearer token's hash to check (NULL: checked before)
    p_key          TEXT,     -- the Idempotency-Key (NULL: none)
    p_key_wait     TEXT,     -- lock_timeout while waiting for a running request with the same key
    p_request_hash TEXT,
    p_answer_status INTEGER,
    p_answer       JSONB
) RETURNS TABLE (replay_request_hash TEXT, replay_status INTEGER, replay_body JSONB)
LANGUAGE plpgsql AS $$
DECLARE
    v_lock_timeout TEXT;
BEGIN
    IF p_token_hash IS NOT NULL THEN
        PERFORM identity.require_token(p_token_hash, p_player::uuid);
    END IF;
    IF p_key IS NOT NULL THEN
        -- the same lock as GamesRepository.lock_idempotency_key: requests with one (player, key) in turn
        v_lock_timeout := current_setting('lock_timeout');
        PERFORM set_config('lock_timeout', p_key_wait, true);
        PERFORM pg_advisory_xact_lock(hashtextextended('games.idempotency:' || p_player || ':' || p_key, 0));
        PERFORM set_config('lock_timeout', v_lock_timeout, true);
        RETURN QUERY SELECT i.request_hash, i.status, i.body FROM games.idempotency i
            WHERE i.player_id = p_player::uuid AND i.key = p_key;
        IF FOUND THEN
            RETURN;  -- an earlier request with this key has answered: its answer, nothing written
        END IF;
    END IF;
    INSERT INTO games.events (stream_id, version, event_id, type, payload, metadata, prev_hash, hash)
    SELECT p_game, (e->>'version')::integer, (e->>'event_id')::uuid, e->>'type', e->'payload', e->'metadata',
           e->>'prev_hash', e->>'hash'
      FROM jsonb_array_elements(p_events) WITH ORDINALITY AS x(e, n)
     ORDER BY x.n;
    IF jsonb_array_length(p_outbox) > 0 THEN
        INSERT INTO games.outbox (queue, job, message)
        SELECT o->>'queue', o->>'job', o->'message'
          FROM jsonb_array_elements(p_outbox) WITH ORDINALITY AS x(o, n)
         ORDER BY x.n;
    END IF;
    UPDATE games.games SET seats = p_seats, status = p_status, version = p_version, head_hash = p_head_hash,
           to_move = p_to_move, outcome = p_outcome, clock_deadline = p_deadline, updated_at = now()
     WHERE id = p_game::uuid;
    IF p_key IS NOT NULL THEN
        INSERT INTO games.idempotency (player_id, key, game_id, request_hash, status, body)
        VALUES (p_player::uuid, p_key, p_game::uuid, p_request_hash, p_answer_status, p_answer);
    END IF;
END
$$;

-- Role tokens minted by the admin (POST /v1/tokens): organisers (who run the leagues they create) and
-- auditors (who read every game's audit and export and change nothing). A principal may hold several
-- tokens (rotation); each is revoked on its own. Only a SHA-256 of the token is kept.
CREATE TABLE IF NOT EXISTS {schema}.role_tokens (
    id           UUID PRIMARY KEY,
    token_hash   TEXT        NOT NULL UNIQUE,
    role         TEXT        NOT NULL CHECK (role IN ('organiser', 'auditor')),
    principal_id UUID        NOT NULL,
    label        TEXT        NOT NULL DEFAULT '',
    created_at   TIMESTAMPTZ NOT NULL DEFAULT now(),
    revoked_at   TIMESTAMPTZ
);
CREATE INDEX IF NOT EXISTS role_tokens_principal_idx ON {schema}.role_tokens (principal_id);

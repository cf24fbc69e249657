"""Validation at the door: a ticket, private table or league whose game type, table size or options the
games service would refuse is refused when it is made (422 naming the field, e.g. ``options.mode``).

What the games service accepts is learnt over its HTTP API (``GET /v1/game-types``: player counts and
each game type's options JSON Schema, cached by the adapter), never from its code; the options are
checked with ``jsonschema``. When the games service does not answer nothing is accepted unchecked: 503
with Retry-After. A check the schema cannot express (one option against the table size) is the games
service's: it answers with GameCreationRefused and the table shows ``failed`` with its reason."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from jsonschema.exceptions import SchemaError, ValidationError
from jsonschema.validators import Draft202012Validator, validator_for

from services.matchmaking.service_layer.errors import InvalidRequest
from shared.errors import Unavailable

RETRY_AFTER_SECONDS = 5


class InvalidFields(InvalidRequest):
    """422 with every invalid field named in ``errors`` (the first one in ``field``)."""

    def __init__(self, errors: dict[str, list[str]]) -> None:
        self.fields = errors
        detail = "; ".join(f"{name}: {messages[0]}" for name, messages in errors.items())
        super().__init__(detail, field=next(iter(errors)))

    def problem_errors(self) -> dict[str, list[str]] | None:
        return self.fields


def games_down() -> Unavailable:
    return Unavailable(
        "the games service does not answer, so the game type and options cannot be checked; "
        f"retry in {RETRY_AFTER_SECONDS} s",
        retry_after=RETRY_AFTER_SECONDS,
        backend="games service",
    )


def check_table_request(
    known: Sequence[Mapping[str, Any]] | None,
    game_type: str,
    counts: Sequence[int],
    options: Mapping[str, Any],
    counts_field: str,
    clock: Mapping[str, Any] | None = None,
    timeout_policy: str | None = None,
) -> None:
    """Raise 422 naming the field the games service would refuse (every invalid field of the options and
    the clock at once), 503 when it cannot be asked. ``clock`` and ``timeout_policy`` are checked against
    the clock schema the games service publishes per game type (``clock.schema``)."""
    if known is None:
        raise games_down()
    entry = next((g for g in known if g.get("id") == game_type), None)
    if entry is None:
        names = ", ".join(sorted(str(g.get("id")) for g in known))
        raise InvalidRequest(f"unknown game type {game_type!r} (hosted: {names})", field="game_type")
    allowed = set(entry.get("player_counts") or [])
    wrong = sorted(set(counts) - allowed) if allowed else []
    if wrong:
        raise InvalidRequest(
            f"{game_type} takes {', '.join(map(str, sorted(allowed)))} players, not {wrong}", field=counts_field
        )
    schema = entry.get("options_schema")
    errors = schema_errors(schema if isinstance(schema, dict) else {"type": "object"}, options, "options")
    if clock is not None or timeout_policy is not None:
        timing = {k: v for k, v in (("clock", clock), ("timeout_policy", timeout_policy)) if v is not None}
        clock_schema = (entry.get("clock") or {}).get("schema")
        if not isinstance(clock_schema, dict):
            raise InvalidRequest(f"the games service offers no clocks for {game_type}", field="clock")
        errors.update(schema_errors(clock_schema, timing, ""))
    if errors:
        raise InvalidFields(errors)


def check_tables_answer(answer: Mapping[str, Any] | None, counts_field: str) -> dict[str, Any]:
    """The games service's ``POST /v1/game-types/table-checks`` answer: the normalized settings, or the
    422 it would give at creation (an option against the table size, e.g. HP-47), named as it named it."""
    if answer is None:
        raise games_down()
    if answer.get("ok"):
        return dict(answer)
    field = str(answer.get("field") or "options")
    if field == "player_counts":
        field = counts_field
    rule = answer.get("rule")
    raise InvalidRequest(str(answer.get("detail") or "the games service refuses this table"), field=field,
                         **({"rule": rule} if rule else {}))


def options_errors(schema: dict[str, Any], options: Any) -> dict[str, list[str]]:
    """``options.<name>`` -> messages, for every way ``options`` breaks ``schema`` (empty: valid)."""
    return schema_errors(schema, options, "options")


def schema_errors(schema: dict[str, Any], instance: Any, prefix: str) -> dict[str, list[str]]:
    """``<prefix>.<path>`` -> messages, for every way ``instance`` breaks ``schema`` (empty: valid)."""
    cls = validator_for(schema, default=Draft202012Validator)
    try:
        cls.check_schema(schema)
    except SchemaError:
        raise Unavailable(
            "the games service sent a schema that is not a valid JSON Schema; retry later",
            retry_after=RETRY_AFTER_SECONDS,
            backend="games service",
        ) from None
    out: dict[str, list[str]] = {}
    for error in sorted(cls(schema).iter_errors(instance), key=lambda e: [str(p) for p in e.absolute_path]):
        for name, message in _fields(error, prefix):
            out.setdefault(name, []).append(message)
    return out


def _join(*parts: Any) -> str:
    return ".".join(str(p) for p in parts if str(p) != "")


def _fields(error: ValidationError, prefix: str) -> list[tuple[str, str]]:
    base = _join(prefix, *error.absolute_path)
    instance = error.instance
    if error.validator == "additionalProperties" and isinstance(instance, dict):
        known = set((error.schema.get("properties") or {}) if isinstance(error.schema, dict) else ())
        extra = sorted(set(instance) - known)
        if extra:
            word = "option" if prefix == "options" else "field"
            return [(_join(base, name), f"unknown {word}") for name in extra]
    if error.validator == "required" and isinstance(instance, dict) and isinstance(error.validator_value, list):
        missing = [name for name in error.validator_value if name not in instance]
        if missing:
            return [(_join(base, name), "required") for name in missing]
    if error.validator == "dependentRequired" and isinstance(instance, dict) and isinstance(
        error.validator_value, dict
    ):  # name the field that needs another (timeout_policy needs clock)
        return [(_join(base, name), f"needs {', '.join(needs)}") for name, needs in error.validator_value.items()
                if name in instance and any(n not in instance for n in needs)]
    return [(base or "body", error.message)]

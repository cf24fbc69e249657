"""RULES.md lists every id of rules/roparun.md with tests that really name it."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

HERE = Path(__file__).parent
# the rules specs live in ../shared beside the repository (a copy of it beside CI's clone)
_CANDIDATES = (
    Path(__file__).resolve().parents[4].parent / "shared" / "rules" / "roparun.md",
    Path("/work/shared/rules/roparun.md"),
)
SPEC = next((p for p in _CANDIDATES if p.exists()), _CANDIDATES[0])


def _spec_ids(text: str) -> list[str]:
    ids: list[str] = []
    for pattern in (r"\*\*(RR-\d+)\*\*", r"\*\*(B-\d+)\*\*", r"\*\*(R\d+)\*\*", r"\*\*(W\d+) "):
        ids += [m for m in re.findall(pattern, text) if m not in ids]
    return ids


def _tests() -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    for path in sorted(HERE.glob("test_*.py")):
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                out[f"{path.name}::{node.name}"] = (node.name, ast.get_docstring(node) or "")
    return out


def _names(rule: str, name: str, doc: str) -> bool:
    if rule.replace("-", "") in name.split("_"):
        return True
    return re.search(r"(?<![\w-])" + re.escape(rule) + r"(?!\d)", doc) is not None


def test_rules_md_is_complete() -> None:
    table = {}
    for line in (HERE / "RULES.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 2 and re.fullmatch(r"(RR-\d+|B-\d+|R\d+|W\d+)", cells[0]):
            table[cells[0]] = re.findall(r"`([^`]+)`", cells[1])
    if not SPEC.exists():
        pytest.skip("the spec lives outside the repository")
    tests = _tests()
    expected = _spec_ids(SPEC.read_text())
    assert len(expected) == 98 and sorted(table) == sorted(expected)
    for rule, listed in table.items():
        assert listed, f"{rule} has no test"
        for test in listed:
            assert test in tests, f"{test} (for {rule}) does not exist"
            assert _names(rule, *tests[test]), f"{test} does not name {rule}"

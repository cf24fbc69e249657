"""The core stays pure (brief; STYLE anti-patterns): no framework, network, clock or randomness."""

import ast
from pathlib import Path

import shared.cityhopper

FORBIDDEN = {
    "flask",
    "psycopg",
    "redis",
    "rq",
    "requests",
    "urllib",
    "http",
    "socket",
    "random",
    "time",
    "datetime",
}
FORBIDDEN |= {"uuid", "secrets", "os", "subprocess"}


def test_no_forbidden_imports() -> None:
    root = Path(shared.cityhopper.__file__).parent
    for path in root.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            for name in names:
                assert name.split(".")[0] not in FORBIDDEN, f"{path.name} imports {name}"

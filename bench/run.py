"""``make bench``: runs every benchmark module and prints one JSON object keyed by benchmark."""

from __future__ import annotations

import contextlib
import importlib
import json
import pkgutil
import sys
import traceback
from pathlib import Path

HERE = Path(__file__).parent


def main() -> int:
    only = set(sys.argv[1:])
    results: dict[str, object] = {}
    for module in sorted(m.name for m in pkgutil.iter_modules([str(HERE)]) if not m.ispkg):
        if module in {"run", "common"} or (only and module not in only):
            continue
        try:
            with contextlib.redirect_stdout(sys.stderr):  # only the combined JSON goes to stdout
                results[module] = importlib.import_module(f"bench.{module}").main()
        except Exception as exc:
            results[module] = {
                "error": f"{type(exc).__name__}: {exc}",
                "trace": traceback.format_exc(limit=3),
            }
    print(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())

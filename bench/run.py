"""``make bench``: runs every benchmark module and prints one JSON object keyed by benchmark.

A module's ``main`` with a ``previous`` parameter gets the results of the modules run before it (in name
order), e.g. ``soak`` paces its moves at a fraction of the rate ``reference`` measured. A module that
raises is reported under its name as ``error`` and the others still run; the exit status is then 1.
``machine``: the load average, a Python loop's time and the kernel's cpuidle driver as the run starts
(figures of different runs compare only beside them)."""

from __future__ import annotations

import contextlib
import importlib
import inspect
import json
import os
import pkgutil
import sys
import traceback
from pathlib import Path

from bench.common import cpuidle_driver, load_average, python_speed_ms

HERE = Path(__file__).parent


def main() -> int:
    only = set(sys.argv[1:])
    # the machine's state as the run starts: its load and how fast it runs Python (bench/common.py)
    results: dict[str, object] = {"machine": {"load_average_at_start": load_average(), "cores": os.cpu_count(),
                                              "python_loop_ms": python_speed_ms(),
                                              "cpuidle_driver": cpuidle_driver()}}
    for module in sorted(m.name for m in pkgutil.iter_modules([str(HERE)]) if not m.ispkg):
        if module in {"run", "common"} or (only and module not in only):
            continue
        try:
            with contextlib.redirect_stdout(sys.stderr):  # only the combined JSON goes to stdout
                run = importlib.import_module(f"bench.{module}").main
                wants = "previous" in inspect.signature(run).parameters  # soak: the rate reference measured
                results[module] = run(previous=dict(results)) if wants else run()
        except Exception as exc:
            results[module] = {
                "error": f"{type(exc).__name__}: {exc}",
                "trace": traceback.format_exc(limit=3),
            }
    print(json.dumps(results, indent=2))
    failed = [name for name, result in results.items() if isinstance(result, dict) and "error" in result]
    if failed:  # the JSON has each one's error; the exit status says that a figure is missing
        print(f"bench: these modules failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

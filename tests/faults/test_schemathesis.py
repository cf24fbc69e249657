"""Issue 14: a hostile-input pass. Schemathesis (``st run``) fuzzes every service from its own
``/openapi.json``, without and with a player's token, with a bounded number of examples per operation
and a fixed seed: 0 responses >= 500, 0 error answers that are not ``application/problem+json``, and
every response matches its documented schema and media type."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from tests.faults.infra import SERVICES, Backplane
from tests.faults.play import register

pytestmark = pytest.mark.faults
MAX_EXAMPLES = 5
CHECKS = "not_a_server_error,content_type_conformance,response_schema_conformance"
# live SSE streams answer by staying open: not fuzzed here (tests/e2e and the hidden-information scenario read them)
SKIP_PATHS = {"games": "/events/stream$", "matchmaking": "/tickets/[^/]+/stream$"}


def st_binary() -> str:
    here = Path(sys.executable).with_name("st")
    found = str(here) if here.exists() else shutil.which("st")
    if not found:
        pytest.fail("schemathesis is not installed: pip install -e '.[dev]'")
    return found


def fuzz(service: str, url: str, report: Path, token: str | None) -> dict[str, object]:
    report.mkdir(parents=True)
    cmd = [st_binary(), "run", url + "/openapi.json", "--checks", CHECKS, "--max-examples", str(MAX_EXAMPLES),
           "--seed", "14", "--phases", "examples,coverage,fuzzing", "--request-timeout", "10", "--workers", "2",
           "--report", "har,json", "--report-dir", str(report),
           "--no-color", "--generation-database", "none"]
    if service in SKIP_PATHS:
        cmd += ["--exclude-path-regex", SKIP_PATHS[service]]
    if token:
        cmd += ["-H", f"Authorization: Bearer {token}"]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=report)
    har = json.loads(next(report.glob("har-*.json")).read_text())
    summary = json.loads(next(report.glob("json-*.json")).read_text())
    responses = [e["response"] for e in har["log"]["entries"]]

    def media(r: dict) -> str:  # type: ignore[type-arg]
        return next((h["value"] for h in r["headers"] if h["name"].lower() == "content-type"), "")

    failures = Counter({f["title"]: int(f.get("count", 1)) for f in summary.get("failures", [])})
    return {
        "responses": len(responses),
        "5xx": sum(1 for r in responses if r["status"] >= 500),
        "not problem+json": sum(1 for r in responses if r["status"] >= 400
                                and not media(r).startswith("application/problem+json")),
        "schema/media-type failures": sum(failures.values()),
        "failures": dict(failures),
        "errored": int(summary.get("test_cases", {}).get("errored", 0)),
        "runner errors": [e.get("title") for e in summary.get("errors", [])],
        "operations": summary.get("operations", {}).get("tested"),
        "exit": done.returncode,
        "tail": done.stdout[-1500:] if done.returncode not in (0, 1) else "",
    }


def test_schemathesis_finds_no_5xx_and_no_undocumented_answers(shared_plane: Backplane, tmp_path: Path) -> None:
    stack = shared_plane.stack
    token = register(stack, "fuzzer").token
    runs = [(svc, auth) for svc in SERVICES for auth in (False, True)]
    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(
            lambda run: fuzz(run[0], stack.urls[run[0]], tmp_path / f"{run[0]}-{'token' if run[1] else 'anon'}",
                             token if run[1] else None), runs))
    total: Counter[str] = Counter()
    for (svc, auth), got in zip(runs, results, strict=True):
        print(f"faults: schemathesis: {svc} {'player token' if auth else 'no token'}: operations="
              f"{got['operations']}, responses={got['responses']}, 5xx={got['5xx']}, not problem+json="
              f"{got['not problem+json']}, schema/media-type failures={got['schema/media-type failures']} "
              f"{got['failures']}, errored test cases={got['errored']}, schemathesis's own errors={got['runner errors']}"
              f"{got['tail']}")
        for k in ("responses", "5xx", "not problem+json", "schema/media-type failures", "errored"):
            total[k] += int(got[k])  # type: ignore[call-overload]
    print(f"faults: schemathesis: total {dict(total)}")
    assert total["responses"] > 0
    assert total["5xx"] == 0
    assert total["not problem+json"] == 0
    assert total["schema/media-type failures"] == 0
    assert total["errored"] == 0

"""The browser tier: Debian's Chromium headless, driven by selenium through Debian's chromedriver, against
the real stack (`speltafel run`) on free ports. Nothing is downloaded: the driver and the browser are
given by path, and Selenium Manager (which would fetch them) is made to fail if anything calls it.

Without Chromium or chromedriver the tier is skipped with the reason, except under CI (env CI set,
as `.ci/run` does), where that is a failure."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import redis_db
from tests.e2e.conftest import ADMIN
from tests.support.platform import ROOT, Platform, platform_for

CHROMIUM = os.environ.get("SPELTAFEL_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("SPELTAFEL_CHROMEDRIVER", "/usr/bin/chromedriver")
ARTIFACTS = ROOT / "test-artifacts"
SCREENSHOTS = ARTIFACTS / "screenshots"


def _missing() -> str | None:
    for what, path in (("chromium", CHROMIUM), ("chromedriver", CHROMEDRIVER)):
        if not (Path(path).is_file() and os.access(path, os.X_OK)):
            return f"{what} not found at {path} (Debian packages chromium and chromium-driver; .ci/run installs them)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed (make install: it is in the dev extras)"
    return None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    here = Path(__file__).parent
    for item in items:
        if here in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.browser)


@pytest.fixture(scope="session")
def chromium() -> Iterator[None]:
    why = _missing()
    if why:
        if os.environ.get("CI"):
            pytest.fail(f"the browser tier must run under CI: {why}")
        pytest.skip(why)
    from selenium.webdriver.common.selenium_manager import SeleniumManager

    def refuse(self: object, args: list[str]) -> dict[str, str]:
        raise AssertionError(f"Selenium Manager was asked to find/download a driver ({args}); the tests give paths")

    original = SeleniumManager.binary_paths
    SeleniumManager.binary_paths = refuse  # type: ignore[method-assign]
    os.environ["SE_OFFLINE"] = "true"
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    yield
    SeleniumManager.binary_paths = original  # type: ignore[method-assign]


@pytest.fixture(scope="session")
def platform(chromium, test_database, backends, tmp_path_factory) -> Iterator[Platform]:  # type: ignore[no-untyped-def]
    with platform_for(test_database, backends, tmp_path_factory.mktemp("browser-stack"), ADMIN, redis_db()) as found:
        yield found


@pytest.fixture(scope="session")
def called_urls() -> Iterator[dict[str, set[str]]]:
    """Every URL any page of the session requested, by test; written to test-artifacts/called-urls.json."""
    found: dict[str, set[str]] = {}
    yield found
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "called-urls.json").write_text(json.dumps({k: sorted(v) for k, v in found.items()}, indent=1))


@pytest.fixture
def browsers(platform: Platform, called_urls: dict[str, set[str]], request: pytest.FixtureRequest) -> Iterator[
        Callable[[str], object]]:
    """A factory: browsers("seat0") opens a new browser (its own profile: one per player) on the client.
    On teardown every URL its pages requested must be a documented public endpoint or a static asset."""
    from tests.browser.pages import Browser, undocumented

    opened: list[Browser] = []

    def open_one(name: str) -> Browser:
        found = Browser(name, platform.base, CHROMIUM, CHROMEDRIVER, SCREENSHOTS)
        opened.append(found)
        return found

    yield open_one
    urls: set[str] = set()
    for b in opened:
        try:
            urls |= b.requested_urls()
        finally:
            b.quit()
    called_urls[request.node.name] = urls
    bad = undocumented(urls, platform.base)
    assert not bad, f"the pages called URLs that are not in /openapi.json nor static assets: {sorted(bad)}"


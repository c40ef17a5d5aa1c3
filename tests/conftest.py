"""Shared test set-up.

Hypothesis runs a modest profile by default (CI); ``TOURNEY_HYPOTHESIS=deep`` runs the same
properties far longer.
"""

import os
import shutil
import signal

import pytest
from hypothesis import HealthCheck, settings

# A shell without job control starts a background command (`pytest ... &`, many CI runners) with
# Ctrl-C ignored, and every process a test starts would inherit that: the tests that press Ctrl-C
# in a terminal (test_human, test_people_cli) or send SIGINT (test_signal_at_spawn) would then
# wait in vain. A person at a terminal has Ctrl-C as Python sets it, so the suite does too.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)

settings.register_profile(
    "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile(
    "deep", max_examples=5000, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
settings.load_profile(os.environ.get("TOURNEY_HYPOTHESIS", "ci"))


@pytest.fixture
def run(tmp_path, monkeypatch):
    """``tourney`` through CliRunner on a fresh club database (the club tests' shared fixture):
    ``run(*args)`` asserts exit 0 unless ``ok=False``; ``run.db`` is the file's path."""
    from typer.testing import CliRunner

    import tourney.commands  # noqa: F401  (registers the commands)
    from tourney.app import app

    db = str(tmp_path / "club.db")
    monkeypatch.setenv("TOURNEY_DB", db)
    monkeypatch.setenv("TOURNEY_USER", "tester")
    runner = CliRunner()

    def invoke(*args, ok=True):
        result = runner.invoke(app, list(args))
        if ok:
            assert result.exit_code == 0, (result.stdout, result.stderr)
        return result

    invoke.db = db
    return invoke


@pytest.fixture(scope="module")
def browser():
    """Debian's Chromium driven by Playwright (the README's test command installs it; no browser
    download), one per test module."""
    from playwright.sync_api import sync_playwright  # only the browser tests need Playwright

    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        yield b
        b.close()


#: a phone's screen, for the pages people use at the table
PHONE = {"width": 390, "height": 844}
#: a ceiling on any one wait in a browser test, against hanging; not a measure of speed
BROWSER_WAIT_MS = 60_000


@pytest.fixture
def phone(browser):
    """A factory of phones: each its own browser context (so its own cookies) at 390 px. At the
    end every page must have run no injected script and thrown no error."""
    made = []

    def make():
        context = browser.new_context(viewport=PHONE)
        page = context.new_page()
        page.set_default_timeout(BROWSER_WAIT_MS)
        page.errors = []
        page.on("pageerror", lambda e: page.errors.append(str(e)))
        made.append((context, page))
        return page

    yield make
    for context, page in made:
        assert page.evaluate("window.__pwned") is None
        context.close()
        assert page.errors == []


@pytest.fixture(autouse=True)
def _no_adopted_zombies():
    """Each test starts without the zombies that earlier tests' orphans left to this process.
    Once a test has started a bot in the test process, the process is a subreaper: orphaned
    bots, sandboxes and keepers become its children, and a later test that checks for zombies
    of its own would count them."""
    from helpers import reap_adopted

    reap_adopted()
    yield


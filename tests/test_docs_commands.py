"""Every command README.md and docs/*.md show in a shell block runs, in the order the page shows
them, from an empty folder, with tourney installed from its wheel and nothing else (issue 43), and
exits 0 as the page implies.

A shell block is a fenced block marked ``sh``, ``bash``, ``shell`` or ``console``, or an unmarked
one whose every line starts with ``$ ``. A command that cannot run here is marked on the line
before its block, visibly in the Markdown source::

    <!-- not run: why -->                       the whole block
    <!-- not run: `tourney serve` runs until stopped -->   only the commands starting with a
                                                           backticked text; the rest run

A block that needs the files of a checkout (``configs/``, ``examples/``, ``bench/``) says so
in its text and is marked the same way; its commands then find those folders in the current one
(linked from the checkout for that block alone)::

    <!-- in a checkout: why -->                    (a not-run marker may follow on the same line)

Each command runs as the page's reader would type it, with ``tourney``, ``python`` and
``python3`` being those of a fresh venv that has the wheel of this checkout installed
(tests/installed.py), no ``PYTHONPATH`` and no ``TOURNEY_*`` setting. The folder starts empty, with
no database: a page that shows a stored game makes it first.
"""

from __future__ import annotations

import re
import shlex
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from installed import installed_tourney

ROOT = Path(__file__).resolve().parent.parent
#: docs/tutorial.md is left to tests/test_tutorial.py, which runs its blocks as one walk-through
#: (one folder, the bot written by its first command) with smaller game counts
PAGES = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").glob("*.md") if p.name != "tutorial.md")]
SHELL = {"sh", "bash", "shell", "console"}
FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>\w*)[^\n]*\n(?P<body>.*?)^(?P=indent)```", re.M | re.S)
NOT_RUN = re.compile(r"<!--\s*not run:(?P<why>.*?)-->", re.S)
IN_CHECKOUT = re.compile(r"<!--\s*in a checkout:(?P<why>.*?)-->", re.S)
#: what a block marked "in a checkout" finds in its folder (linked from the checkout)
SHARED = ("configs", "examples", "bench")
#: a command that names them, or installs the checkout, is one for a checkout
CHECKOUT_WORDS = re.compile(r"(?:^|[\s='\"])(?:\./)?(?:configs|examples|bench)/|pip install (?:-q )?-e ")
#: a guard against a command that waits for ever (an unmarked server or prompt), not a speed limit
HANG_GUARD_S = 900


@dataclass
class Block:
    page: str
    line: int
    commands: list[str]
    skipped: list[str] = field(default_factory=list)
    marker: str | None = None  # the not-run reason, if any
    checkout: bool = False  # the block is run where a checkout's files are


def commands_of(body: str, lang: str) -> list[str]:
    """The commands of a block: ``$ `` prompts dropped, continued lines joined, ``a && b`` as
    two commands, comments and blank lines left out."""
    text = re.sub(r"\s*\\\n\s*", " ", body)
    out = []
    for line in text.splitlines():
        line = line.strip()
        if line.startswith("$ "):
            line = line[2:]
        elif lang == "console":
            continue  # a console block's output lines
        line = re.sub(r"\s+#.*$", "", line)
        if line and not line.startswith("#"):
            out.extend(part.strip() for part in line.split(" && "))
    return out


def blocks(page: Path) -> list[Block]:
    text = page.read_text()
    found = []
    for m in FENCE.finditer(text):
        lang, body = m.group("lang"), m.group("body")
        lines = [x for x in body.splitlines() if x.strip()]
        if lang not in SHELL and not (lang == "" and lines and all(x.strip().startswith("$ ") for x in lines)):
            continue
        before = text[:m.start()].rstrip().rsplit("\n", 1)[-1]
        marker = NOT_RUN.search(before)
        block = Block(page.name, text[:m.start()].count("\n") + 1,
                      commands_of(body, lang), marker=marker.group("why").strip() if marker else None,
                      checkout=IN_CHECKOUT.search(before) is not None)
        if marker:
            prefixes = re.findall(r"`([^`]+)`", block.marker or "")
            if not prefixes:
                block.skipped, block.commands = block.commands, []
            else:
                block.skipped = [c for c in block.commands if any(c.startswith(p) for p in prefixes)]
                block.commands = [c for c in block.commands if c not in block.skipped]
                unused = [p for p in prefixes if not any(c.startswith(p) for c in block.skipped)]
                assert not unused, f"{block.page}:{block.line}: the marker names no command: {unused}"
        found.append(block)
    return found


def empty_folder(tmp_path: Path) -> Path:
    folder = tmp_path / "reader"
    folder.mkdir()
    folder.chmod(0o755)  # bots run as nobody when the tests run as root: their folder must be readable
    return folder


def test_the_parser_reads_blocks_markers_and_chains(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("text\n\n```sh\ntourney a   # comment\n\ntourney b \\\n  --x && tourney c\n```\n\n"
                    "<!-- not run: `tourney serve` serves until stopped -->\n"
                    "   ```bash\n   tourney serve --port 1\n   tourney d\n   ```\n"
                    "<!-- not run: needs a cluster -->\n```console\n$ dask worker\nsome output\n```\n"
                    "```\n$ tourney e\n```\n```json\n{}\n```\n"
                    "<!-- in a checkout: bench/ --> <!-- not run: `python3 bench` takes minutes -->\n"
                    "```sh\npython3 bench/x.py\ntourney f\n```\n")
    found = [(b.line, b.commands, b.skipped, b.checkout) for b in blocks(page)]
    assert found == [(3, ["tourney a", "tourney b --x", "tourney c"], [], False),
                     (11, ["tourney d"], ["tourney serve --port 1"], False),
                     (16, [], ["dask worker"], False),
                     (20, ["tourney e"], [], False),
                     (27, ["tourney f"], ["python3 bench/x.py"], True)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_a_block_that_needs_a_checkout_says_so(page):
    """Run or not, a block naming the checkout's folders is marked, so that a reader of the page
    sees where it runs (issue 43: every block runs as written from an empty folder otherwise)."""
    unmarked = [f"{block.page}:{block.line}: {command}" for block in blocks(page) if not block.checkout
                for command in block.commands + block.skipped if CHECKOUT_WORDS.search(command)]
    assert not unmarked, "mark these blocks <!-- in a checkout: why --> and say so in the text:\n" + "\n".join(unmarked)


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_shell_command_of_the_page_runs(page, tmp_path):
    found = blocks(page)
    if not any(block.commands for block in found):
        return
    env = installed_tourney().env(CI="true")
    folder = empty_folder(tmp_path)
    for block in found:
        links = [folder / name for name in SHARED] if block.checkout and block.commands else []
        for link in links:
            link.symlink_to(ROOT / link.name)
        for command in block.commands:
            done = subprocess.run(["bash", "-c", command], cwd=folder, env=env, stdin=subprocess.DEVNULL,
                                  capture_output=True, text=True, timeout=HANG_GUARD_S)
            assert done.returncode == 0, (
                f"{block.page}:{block.line}: `{command}` exited {done.returncode}\n"
                f"stdout: {done.stdout[-2000:]}\nstderr: {done.stderr[-2000:]}\n"
                "(a block that needs files says how to get them first: run from an empty folder, it gets them; "
                "mark it <!-- in a checkout: why --> if it needs the checkout's, or <!-- not run: why -->)")
        for link in links:
            link.unlink()
    # the command names stay quoted the way a shell reads them
    for block in found:
        for command in block.commands:
            shlex.split(command)

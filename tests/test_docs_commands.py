"""Every command README.md and docs/*.md show in a shell block runs, in the order the page shows
them, in a scratch folder with a fresh database, and exits 0 as the page implies.

A shell block is a fenced block marked ``sh``, ``bash``, ``shell`` or ``console``, or an unmarked
one whose every line starts with ``$ ``. A command that cannot run here is marked on the line
before its block, visibly in the Markdown source::

    <!-- not run: why -->                       the whole block
    <!-- not run: `tourney serve` runs until stopped -->   only the commands starting with a
                                                           backticked text; the rest run

Each command runs as the page's reader would type it, with ``tourney`` and ``python3`` being
this checkout's; ``configs/``, ``examples/`` and ``bench/`` are there to be named, and the
default database (``results/tourney.db``) holds one game of ``tourney play greedy random``.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SHELL = {"sh", "bash", "shell", "console"}
FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>\w*)[^\n]*\n(?P<body>.*?)^(?P=indent)```", re.M | re.S)
NOT_RUN = re.compile(r"<!--\s*not run:(?P<why>.*?)-->", re.S)
#: what a scratch folder offers the commands of a page (linked from the checkout)
SHARED = ("configs", "examples", "bench")
#: a guard against a command that waits for ever (an unmarked server or prompt), not a speed limit
HANG_GUARD_S = 900


@dataclass
class Block:
    page: str
    line: int
    commands: list[str]
    skipped: list[str] = field(default_factory=list)
    marker: str | None = None  # the not-run reason, if any


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
                      commands_of(body, lang), marker=marker.group("why").strip() if marker else None)
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


def scratch(tmp_path: Path) -> dict:
    """A folder like a checkout for the commands, and an environment where ``tourney`` and
    ``python3`` are this checkout's."""
    for name in SHARED:
        (tmp_path / name).symlink_to(ROOT / name)
    bin_dir = tmp_path / ".bin"
    bin_dir.mkdir()
    for name, line in (("tourney", f'exec "{sys.executable}" -m tourney "$@"'),
                       ("python3", f'exec "{sys.executable}" "$@"')):
        (bin_dir / name).write_text(f"#!/bin/sh\n{line}\n")
        (bin_dir / name).chmod(0o755)
    env = {k: v for k, v in os.environ.items() if not k.startswith("TOURNEY_")}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}",
               PYTHONPATH=str(ROOT) + os.pathsep + env.get("PYTHONPATH", ""), CI="true")
    # the pages show commands run where results exist: one stored game to start from
    seeded = subprocess.run(["tourney", "play", "greedy", "random"], cwd=tmp_path, env=env,
                            stdin=subprocess.DEVNULL, capture_output=True, text=True)
    assert seeded.returncode == 0, seeded.stderr
    return env


def test_the_parser_reads_blocks_markers_and_chains(tmp_path):
    page = tmp_path / "p.md"
    page.write_text("text\n\n```sh\ntourney a   # comment\n\ntourney b \\\n  --x && tourney c\n```\n\n"
                    "<!-- not run: `tourney serve` serves until stopped -->\n"
                    "   ```bash\n   tourney serve --port 1\n   tourney d\n   ```\n"
                    "<!-- not run: needs a cluster -->\n```console\n$ dask worker\nsome output\n```\n"
                    "```\n$ tourney e\n```\n```json\n{}\n```\n")
    found = [(b.line, b.commands, b.skipped) for b in blocks(page)]
    assert found == [(3, ["tourney a", "tourney b --x", "tourney c"], []),
                     (11, ["tourney d"], ["tourney serve --port 1"]),
                     (16, [], ["dask worker"]),
                     (20, ["tourney e"], [])]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_shell_command_of_the_page_runs(page, tmp_path):
    found = blocks(page)
    env = scratch(tmp_path)
    for block in found:
        for command in block.commands:
            done = subprocess.run(["bash", "-c", command], cwd=tmp_path, env=env, stdin=subprocess.DEVNULL,
                                  capture_output=True, text=True, timeout=HANG_GUARD_S)
            assert done.returncode == 0, (
                f"{block.page}:{block.line}: `{command}` exited {done.returncode}\n"
                f"stdout: {done.stdout[-2000:]}\nstderr: {done.stderr[-2000:]}\n"
                f"(mark it <!-- not run: why --> before its block if it cannot run in a test)")
    # the command names stay quoted the way a shell reads them
    for block in found:
        for command in block.commands:
            shlex.split(command)

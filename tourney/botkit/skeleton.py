"""``tourney new-bot``: a new bot's folder, in Python, JavaScript or C.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp()) / "wily"
>>> sorted(p.name for p in write_skeleton("wily", "python", folder))
['README.md', 'bot.py', 'botkit.py', 'gauntlet.toml']

Every skeleton is a bot that answers a random legal option, with one marked place for the
author's strategy, the language's protocol helper (copied, so the folder runs anywhere), a README
with the commands to check it and to play it in an event, and ``gauntlet.toml``, an event against
the built-in bots. The C skeleton adds a Makefile.
"""

from __future__ import annotations

import json
import os
import re
from importlib import resources
from pathlib import Path

from tourney.errors import UserError

LANGS = ("python", "javascript", "c")
NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]{0,63}")

#: per language: (bot file, helper file, helper source, check command, gauntlet command)
_LAYOUT = {
    "python": ("bot.py", "botkit.py", "kit.py", "{python} bot.py", ["{python}", "bot.py"]),
    "javascript": ("bot.js", "botkit.js", "files/botkit.js", "node bot.js", ["node", "bot.js"]),
    "c": ("bot.c", "botkit.h", "files/botkit.h", "./bot", ["./bot"]),
}
_TITLES = {"python": "Python", "javascript": "JavaScript (Node.js)", "c": "C"}


def _package_text(relative: str) -> str:
    return resources.files("tourney.botkit").joinpath(relative).read_text(encoding="utf-8")


def _write(path: Path, text: str, executable: bool = False) -> Path:
    path.write_text(text, encoding="utf-8")
    # readable by everyone: when tourney runs as root, bots run as nobody (docs/protocol.md)
    path.chmod(0o755 if executable else 0o644)
    return path


_COMMENTED = re.compile(r"^(?P<command>\S.*?)\s+# (?P<comment>.*)$")


def align_comments(markdown: str) -> str:
    """``markdown`` with the end-of-line comments of each shell block starting in one column, three
    spaces after its longest commented command (the names filled in make the commands' lengths).

    >>> print(align_comments("```sh\\nmake  # build\\ntourney run x.toml # run\\n```"))
    ```sh
    make                 # build
    tourney run x.toml   # run
    ```
    """
    def align(block: re.Match) -> str:
        lines = block.group(0).split("\n")
        found = [_COMMENTED.match(line) for line in lines]
        width = max((len(m.group("command")) for m in found if m), default=0)
        return "\n".join(f"{m.group('command'):<{width}}   # {m.group('comment')}" if m else line
                         for line, m in zip(lines, found))

    return re.sub(r"^```sh\n.*?^```", align, markdown, flags=re.M | re.S)


def write_skeleton(name: str, lang: str, folder: str | os.PathLike | None = None) -> list[Path]:
    """Write bot ``name`` in ``lang`` into ``folder`` (default: ``./name``); the files written.

    The folder must not exist, or be empty: nothing is ever overwritten (:class:`UserError`)."""
    if lang not in LANGS:
        raise UserError(f"--lang must be one of {', '.join(LANGS)}, not {lang!r}")
    if not NAME.fullmatch(name):
        raise UserError(f"bot name {name!r}: use a letter, then letters, digits, '-' or '_' (at most 64)")
    target = Path(folder) if folder is not None else Path(name)
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise UserError(f"{target}: already exists and is not an empty folder; nothing written")
    try:
        target.mkdir(parents=True, exist_ok=True)
        target.chmod(0o755)
    except OSError as exc:
        raise UserError(f"{target}: cannot create the folder ({exc.strerror})") from None
    main, helper, helper_source, check, command = _LAYOUT[lang]
    extension = {"python": "py", "javascript": "js", "c": "c"}[lang]
    written = [
        _write(target / main, _package_text(f"files/bot.{extension}.txt").replace("__NAME__", name),
               executable=lang != "c"),
        _write(target / helper, _package_text(helper_source)),
    ]
    if lang == "c":
        written.append(_write(target / "Makefile", _package_text("files/Makefile.txt")))
    build = "make  # builds ./bot (needs a C compiler)\n" if lang == "c" else ""
    extra = "| `Makefile` | `make` builds `./bot` |\n" if lang == "c" else ""
    readme = (_package_text("files/README.md.txt")
              .replace("__NAME__", name).replace("__LANG__", _TITLES[lang]).replace("__MAIN__", main)
              .replace("__HELPER__", helper).replace("__EXTRA_ROWS__", extra).replace("__BUILD__", build)
              .replace("__CHECK__", check))
    written.append(_write(target / "README.md", align_comments(readme)))
    gauntlet = (_package_text("files/gauntlet.toml.txt").replace("__NAME__", name)
                .replace("__COMMAND__", json.dumps(command)))
    written.append(_write(target / "gauntlet.toml", gauntlet))
    return written

"""docs/tutorial.md works as written (issue 24, point 7; issue 43, points 1-3): its shell blocks and
Python programs run in order in one shell, from an empty folder, with tourney installed from its
wheel and nothing of the checkout, with the strategy block put into the bot where the tutorial
says, fewer games and shorter training. The outputs and file tables it shows are checked against
what the commands print and write, so that none goes stale."""

import re
import subprocess
from pathlib import Path

from installed import installed_tourney

from tourney.rl.export import FILES as EXPORTED

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL = ROOT / "docs" / "tutorial.md"
SKIP = "<!-- not run by tests/test_tutorial.py"
STRATEGY = "<!-- strategy:"

#: fewer games and less training than a reader's (the commands are otherwise the tutorial's own)
SMALLER = [
    ("tourney run gauntlet.toml",
     "sed -i 's/^games = 3 /games = 1 /; s/^rounds = 2 /rounds = 1 /' gauntlet.toml && tourney run gauntlet.toml"),
    ("--max-games 400", "--max-games 8"),
    ("--minutes 3", "--episodes 6 --eval 2 --sprt-games 4"),
]


def blocks(text):
    """(kind, body, marker) for every fenced block, where marker is the comment before it."""
    out = []
    for match in re.finditer(r"(<!--[^>]*?-->\s*)?```(\w+)\n(.*?)```", text, re.S):
        out.append((match.group(2), match.group(3), (match.group(1) or "").strip()))
    return out


def script_of(found):
    """The walk-through as one bash script: shell blocks as they are, Python programs through
    ``python -``, the strategy put into bot.py after the first check (as step 3 says)."""
    steps = []
    for kind, body, marker in found:
        if marker.startswith(SKIP):
            continue
        if kind == "sh":
            steps.append(body)
        elif kind == "python" and not marker.startswith(STRATEGY):
            steps.append(f"python - <<'PYEOF'\n{body}PYEOF\n")
    strategy = [body for kind, body, marker in found if kind == "python" and marker.startswith(STRATEGY)]
    assert len(strategy) == 1
    insert = (
        "python - <<'PYEOF'\n"
        "import re, pathlib\n"
        "bot = pathlib.Path('bot.py')\n"
        f"block = {strategy[0]!r}\n"
        "text = bot.read_text()\n"
        "new = re.sub(r'    # ==== YOUR STRATEGY GOES HERE.*?# =+\\n', lambda m: block, text, count=1, flags=re.S)\n"
        "assert new != text\n"
        "bot.write_text(new)\n"
        "PYEOF\n"
    )
    at = next(i for i, step in enumerate(steps) if "tourney check" in step) + 1
    script = "\n".join(steps[:at] + [insert] + steps[at:])
    for old, new in SMALLER:
        assert old in script, old
        script = script.replace(old, new)
    return script


def table_files(text, heading):
    """The file names of the first table after ``heading``."""
    section = text[text.index(heading):]
    table = re.search(r"\| file \| what it is \|\n\| --- \| --- \|\n((?:\|.*\n)+)", section).group(1)
    return sorted(re.match(r"\| `([^`]+)` \|", row).group(1) for row in table.splitlines())


def outcome_free(line):
    """A line of `tourney check` with the game's outcome left out (the skeleton plays at random)."""
    return re.sub(r"played to the end, .*$", "played to the end, ...", line)


def shape(line):
    """A pattern matching any line of the shape of ``line``: its numbers (signed or not) and verdict
    may differ, and so may the Elo estimate, which a test stopped early gives without its ± or
    not at all."""
    verdicts = r"H0 accepted|H1 accepted|inconclusive"
    number = r"[-+]?(?:\d+(?:\.\d+)?|inf)"
    elo = f"; Elo {number}(?: ± {number})?"
    parts = []
    for piece in re.split(f"({verdicts}|{elo}|{number})", line):
        if re.fullmatch(verdicts, piece):
            parts.append(f"(?:{verdicts})")
        elif re.fullmatch(elo, piece):
            parts.append(f"(?:{elo})?")
        elif re.fullmatch(number, piece):
            parts.append(number)
        else:
            parts.append(re.escape(piece))
    return "".join(parts)


def test_tutorial_runs_end_to_end_from_an_empty_folder(tmp_path):
    text = TUTORIAL.read_text()
    found = blocks(text)
    script = script_of(found)
    tourney = installed_tourney()
    scratch = tmp_path / "tutorial"
    scratch.mkdir()
    scratch.chmod(0o755)  # bots run as nobody when the tests run as root: their folder must be readable
    done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", script], cwd=scratch, env=tourney.env(),
                          capture_output=True, text=True, timeout=900, stdin=subprocess.DEVNULL)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    out = done.stdout + done.stderr
    # part 1: two checks of wily; part 2: the exported bot's check
    assert out.count("the bot follows the protocol") == 3
    bot = (scratch / "my-bots" / "wily" / "bot.py").read_text()
    assert 'if game.kind == "colour"' in bot and "YOUR STRATEGY GOES HERE" in bot
    # part 2's programs ran to their ends, and the training wrote under the folder it ran in
    assert "rewards:" in out and "reward:" in out and "snapshots: 10" in out
    assert "faults: {}" in out  # wily, as an opponent in the Gymnasium environment, played without fault
    assert (scratch / "my-bots" / "results" / "train" / "policy.npz").is_file()

    # the outputs shown are what the commands print
    shown = [body for kind, body, _ in found if kind == "text"]
    check_shown = next(b for b in shown if "the bot follows the protocol" in b).splitlines()
    check_lines = out.splitlines()
    first = check_lines.index(next(line for line in check_lines if line.startswith("ok   handshake:")))
    assert [outcome_free(x) for x in check_lines[first:first + len(check_shown)]] == \
        [outcome_free(x) for x in check_shown]
    sprt_shown = next(b for b in shown if b.startswith("sprt [")).strip()
    sprt_lines = [line for line in out.splitlines() if line.startswith("sprt [")]
    assert sprt_lines and re.fullmatch(shape(sprt_shown), sprt_lines[-1]), (sprt_shown, sprt_lines)

    # the file tables list what new-bot and export-bot write
    assert table_files(text, "### 1. Make the bot") == sorted(
        p.name for p in (scratch / "my-bots" / "wily").iterdir() if p.name != "results")
    assert table_files(text, "### From a trained policy to a bot") == sorted(EXPORTED) == sorted(
        p.name for p in (scratch / "my-bots" / "wise").iterdir())


def test_the_shape_of_a_shown_line_matches_other_numbers_but_not_other_words():
    shown = "sprt [0, 50] pentanomial: H0 accepted; LLR -3.70 (bounds -2.94, 2.94); 48 games (24 pairs), " \
            "score 0.146; Elo -307.1 ± 145.5; restart never"
    other = shown.replace("H0 accepted", "inconclusive").replace("-3.70", "1.2").replace("48 games", "8 games")
    assert re.fullmatch(shape(shown), other)
    assert re.fullmatch(shape(shown), other.replace(" ± 145.5", ""))
    assert re.fullmatch(shape(shown), other.replace("Elo -307.1 ± 145.5", "Elo +88.7"))
    assert re.fullmatch(shape(shown), other.replace("; Elo -307.1 ± 145.5", ""))
    assert re.fullmatch(shape(shown), other.replace("Elo -307.1 ± 145.5", "Elo -inf"))
    assert not re.fullmatch(shape(shown), shown.replace("H0 accepted", "H2 accepted"))
    assert not re.fullmatch(shape(shown), shown.replace("; restart never", ""))
    assert not re.fullmatch(shape(shown), shown.replace("; restart never", "; restart game"))

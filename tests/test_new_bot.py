"""``tourney new-bot`` and the protocol helpers (issue 24, points 5 and 6): every skeleton passes
``tourney check`` as it is written, in the sandbox, and writes nothing into its own folder."""

import io
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import assert_reused_plays_as_fresh
from typer.testing import CliRunner

import tourney.commands  # noqa: F401  (registers the commands)
from tourney.app import app
from tourney.botkit import kit

runner = CliRunner()
NO_CC = shutil.which("cc") is None and shutil.which("gcc") is None

LANGS = [
    pytest.param("python", ["{python}", "bot.py"], id="python"),
    pytest.param("javascript", ["node", "bot.js"], id="javascript",
                 marks=pytest.mark.skipif(shutil.which("node") is None, reason="no node on this machine")),
    pytest.param("c", ["./bot"], id="c",
                 marks=pytest.mark.skipif(NO_CC or shutil.which("make") is None,
                                          reason="no C compiler (cc/gcc) or make on this machine")),
]


def listing(folder):
    return sorted((p.name, p.stat().st_mtime_ns) for p in folder.iterdir())


@pytest.mark.parametrize("lang,command", LANGS)
def test_every_skeleton_passes_check_first_time(tmp_path, lang, command):
    folder = tmp_path / "wily"
    result = runner.invoke(app, ["new-bot", "wily", "--lang", lang, "--dir", str(folder)])
    assert result.exit_code == 0, result.output
    text = (folder / "README.md").read_text()
    assert "tourney check -- " + " ".join(command) in text and "gauntlet.toml" in text
    main = folder / {"python": "bot.py", "javascript": "bot.js", "c": "bot.c"}[lang]
    assert main.read_text().count("YOUR STRATEGY GOES HERE") == 1
    if lang == "c":
        build = subprocess.run(["make"], cwd=folder, capture_output=True, text=True)
        assert build.returncode == 0 and "warning" not in build.stderr, build.stderr
    before = listing(folder)
    result = runner.invoke(app, ["check", "--cwd", str(folder), "--games", "3", "--", *command])
    assert result.exit_code == 0, result.output
    assert "the bot follows the protocol" in result.output
    assert "runs isolated" in result.output or "sandbox: none here" in result.output
    assert listing(folder) == before  # in the sandbox it can write only its scratch directory
    # and unsandboxed it still writes nothing into its folder (no __pycache__, no files)
    result = runner.invoke(app, ["check", "--cwd", str(folder), "--games", "1", "--sandbox", "off", "--",
                                 *command])
    assert result.exit_code == 0, result.output
    assert listing(folder) == before


def test_new_bot_never_overwrites_and_checks_its_arguments(tmp_path):
    folder = tmp_path / "taken"
    folder.mkdir()
    (folder / "bot.py").write_text("mine")
    result = runner.invoke(app, ["new-bot", "taken", "--dir", str(folder)])
    assert result.exit_code == 2 and "nothing written" in result.output
    assert (folder / "bot.py").read_text() == "mine"
    result = runner.invoke(app, ["new-bot", "x", "--lang", "rust", "--dir", str(tmp_path / "x")])
    assert result.exit_code == 2 and "--lang" in result.output and not (tmp_path / "x").exists()
    result = runner.invoke(app, ["new-bot", "../evil", "--dir", str(tmp_path / "y")])
    assert result.exit_code == 2 and "bot name" in result.output


def test_the_python_skeletons_helper_is_the_installed_one(tmp_path):
    runner.invoke(app, ["new-bot", "same", "--dir", str(tmp_path / "same")])
    assert (tmp_path / "same" / "botkit.py").read_text() == Path(kit.__file__).read_text()


REQUEST = {"type": "request", "id": 7, "kind": "main", "prompt": "play",
           "options": [{"id": "play:3", "label": "play A"}, {"id": "end", "label": "end the turn"}],
           "view": {"hand": [3, 9], "top": 1}, "time_left": 5.0}
START = {"type": "game_start", "seat": 1, "players": 2, "teams": None, "rule_set": "crazy-eights",
         "options": {}, "first_player": 0, "series": {"game": 1, "of": 1},
         "cards": {"3": {"name": "4C", "rank": "4", "suits": ["clubs"], "type": "card"}}}


def talk(choose, messages, **kwargs):
    out = io.StringIO()
    kit.run(choose, "t", stdin=io.StringIO("".join(json.dumps(m) + "\n" for m in messages)), stdout=out,
            **kwargs)
    return [json.loads(line) for line in out.getvalue().splitlines()]


def test_python_helper_reuses_a_process_and_seeds_each_game_from_its_game_start():
    draws = []

    def choose(view, options):
        draws.append(kit.game.rng.random())
        return "end"

    hello = {"type": "hello", "protocol": "tourney-bot", "version": "1.2", "seed": 4, "features": ["reuse"]}
    lines = talk(choose, [hello, {**START, "seed": 99}, REQUEST, {"type": "game_end", "result": {}},
                          {**START, "seed": 99}, REQUEST, {"type": "goodbye"}])
    assert lines[0]["features"] == ["reuse"] and lines[0]["version"] == "1.2"
    assert draws[0] == draws[1]  # the same game seed, the same draws, however many games before


def test_python_helper_speaks_the_protocol():
    seen = []

    def choose(view, options):
        seen.append((view["hand"], options, kit.game.kind, kit.game.card(3)["name"], kit.game.seat,
                     kit.game.labels["end"]))
        return "end"

    ended = []
    lines = talk(choose, [{"type": "hello", "protocol": "tourney-bot", "version": "1.0", "seed": 4}, START,
                          REQUEST, {"type": "game_end", "result": {"winners": [1]}}, {"type": "goodbye"},
                          REQUEST], on_game_end=ended.append)
    assert lines == [{"type": "hello", "protocol": "tourney-bot", "version": "1.2", "name": "t", "features": []},
                     {"type": "answer", "id": 7, "option": "end"}]  # nothing after goodbye
    assert seen == [([3, 9], ["play:3", "end"], "main", "4C", 1, "end the turn")]
    assert ended and kit.game.result == {"winners": [1]}


def test_python_helper_answers_a_legal_option_when_choose_fails(capsys):
    def broken(view, options):
        raise KeyError("oops")

    assert talk(broken, [REQUEST])[0]["option"] == "play:3"
    assert talk(lambda view, options: "teleport", [REQUEST])[0]["option"] == "play:3"
    assert "KeyError" in capsys.readouterr().err


@pytest.mark.skipif(NO_CC, reason="no C compiler (cc/gcc) on this machine")
def test_c_helper_reads_the_json_the_referee_may_send(tmp_path):
    """Escapes, non-ASCII text, nesting, empty containers, numbers in every form, unknown keys
    and message types, a blank line and a broken line: the C bot reads them all and answers
    with the id exactly as offered."""
    runner.invoke(app, ["new-bot", "cbot", "--lang", "c", "--dir", str(tmp_path / "cbot")])
    folder = tmp_path / "cbot"
    source = (folder / "bot.c").read_text().replace(
        "return botkit_random(count); /* a random legal option */",
        "return count - 1; /* the last option */")
    (folder / "bot.c").write_text(source)
    assert subprocess.run(["make"], cwd=folder, capture_output=True).returncode == 0
    tricky = dict(REQUEST, id=12345678901,
                  options=[{"id": "play:3", "label": "pl\u00e4y \U0001f0cf"},
                           {"id": "we\"ird\\id/\u00e9", "label": "\t\n"}],
                  view={"hand": [], "nested": [[[{}]], {"a": [1.5e3, -0.25, 0, True, False, None]}],
                        "text": "\u2660\u2665 \\u0041"},
                  extra={"unknown": "key"})
    start = dict(START, cards={"0": {"name": "Ang\u00e9l", "suits": ["moon"]}})
    lines = [json.dumps({"type": "hello", "seed": 3, "limits": {"x": 1}}), "", json.dumps(start),
             json.dumps({"type": "news", "what": [1, 2]}), "{not json", json.dumps(tricky, ensure_ascii=True),
             json.dumps(dict(tricky, id=2), ensure_ascii=False), json.dumps({"type": "goodbye"})]
    done = subprocess.run(["./bot"], cwd=folder, input="\n".join(lines) + "\n", capture_output=True,
                          text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert answers[0]["type"] == "hello" and answers[0]["name"] == "cbot"
    assert answers[1:] == [{"type": "answer", "id": 12345678901, "option": "we\"ird\\id/\u00e9"},
                           {"type": "answer", "id": 2, "option": "we\"ird\\id/\u00e9"}]
    assert "not JSON" in done.stderr
    # nesting deeper than the reader allows is refused as a line, not a crash
    deep = "[" * 100000 + "]" * 100000
    done = subprocess.run(["./bot"], cwd=folder, input=deep + "\n" + json.dumps(REQUEST) + "\n",
                          capture_output=True, text=True, timeout=30)
    assert done.returncode == 0 and json.loads(done.stdout)["option"] == "end"


@pytest.mark.skipif(shutil.which("node") is None, reason="no node on this machine")
def test_js_helper_answers_exactly_and_leaves_on_goodbye(tmp_path):
    runner.invoke(app, ["new-bot", "jsbot", "--lang", "javascript", "--dir", str(tmp_path / "jsbot")])
    lines = [{"type": "hello", "seed": 1}, START, REQUEST, {"type": "goodbye"}]
    done = subprocess.run(["node", "bot.js"], cwd=tmp_path / "jsbot", capture_output=True, text=True,
                          input="".join(json.dumps(m) + "\n" for m in lines), timeout=30,
                          env={**os.environ, "PATH": os.environ["PATH"]})
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert answers[0]["name"] == "jsbot" and answers[1]["id"] == 7
    assert answers[1]["option"] in ("play:3", "end") and len(answers) == 2


def test_python_skeleton_runs_without_tourney_installed(tmp_path):
    """The folder carries its helper: a Python that cannot import tourney runs it."""
    runner.invoke(app, ["new-bot", "alone", "--dir", str(tmp_path / "alone")])
    lines = [{"type": "hello", "seed": 1}, START, REQUEST, {"type": "goodbye"}]
    done = subprocess.run([sys.executable, "-S", "-E", "-s", "bot.py"], cwd=tmp_path / "alone", capture_output=True,
                          text=True, input="".join(json.dumps(m) + "\n" for m in lines), timeout=30)
    assert done.returncode == 0, done.stderr
    assert [json.loads(x)["type"] for x in done.stdout.splitlines()] == ["hello", "answer"]


@pytest.mark.parametrize("lang,command", LANGS)
def test_every_skeleton_reuses_its_process_and_plays_a_game_as_a_fresh_one_would(tmp_path, lang, command):
    # protocol 1.2: the helper says reuse and reseeds from each game_start, so the same game with
    # the same bot seed gets the same answers after other games as from a fresh process
    from tourney.bots.entrants import EntrantSpec

    folder = tmp_path / "warmy"
    assert runner.invoke(app, ["new-bot", "warmy", "--lang", lang, "--dir", str(folder)]).exit_code == 0
    if lang == "c":
        assert subprocess.run(["make"], cwd=folder, capture_output=True).returncode == 0
    assert_reused_plays_as_fresh(EntrantSpec("warmy", command=tuple(command), cwd=str(folder)))


@pytest.mark.parametrize("lang", ["python", "javascript", "c"])
@pytest.mark.parametrize("name", ["wily", "a-much-longer-bot-name-than-the-template-had"])
def test_the_readme_s_commands_have_their_comments_in_one_column(tmp_path, lang, name):
    """Issue 43, point 8: the names filled in change the commands' lengths, not the comments' column."""
    folder = tmp_path / name
    assert runner.invoke(app, ["new-bot", name, "--lang", lang, "--dir", str(folder)]).exit_code == 0
    text = (folder / "README.md").read_text()
    for block in re.findall(r"^```sh\n(.*?)^```", text, re.M | re.S):
        commented = [line for line in block.splitlines() if " # " in line and not line.startswith("#")]
        assert len(commented) >= 3
        assert len({line.index(" # ") for line in commented}) == 1, block
        assert any(re.search(r"\S   # ", line) for line in commented), block  # the longest: 3 spaces

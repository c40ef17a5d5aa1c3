"""One object per event format (tourney/formats/): each checks its keys with one clear line,
stores exactly the event it always stored (hashes of stored events unchanged), plans its first
series and its next round, and says what its report adds."""

from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest

from tourney import formats
from tourney.config import ConfigError, load_config, parse_config
from tourney.formats import FORMATS, FormatName, Unit

ROOT = Path(__file__).resolve().parents[1]


def entrants(*names):
    return [{"name": n, "builtin": "random"} for n in names]


def event(fmt, names="abc", **keys):
    return parse_config({"event": {"name": "e", "format": fmt, **keys}, "entrants": entrants(*names)}).event


def test_every_format_name_has_one_object_and_a_row_in_the_docs():
    assert list(FORMATS) == list(FormatName)
    assert all(FORMATS[name].name == name for name in FormatName)
    doc = (ROOT / "docs" / "formats.md").read_text()
    table = doc.split("## Formats", 1)[1].split("###", 1)[0]
    assert set(re.findall(r"^\| `([a-z-]+)` \|", table, re.M)) == {str(n) for n in FormatName}


def test_names_and_units_are_str_enums_that_store_as_plain_strings():
    stored = event("round-robin")
    assert stored["format"] == FormatName.ROUND_ROBIN and stored["unit"] == Unit.MATCH
    assert type(stored["format"]) is str and type(stored["unit"]) is str
    assert json.dumps(FormatName.SWISS) == '"swiss"'


# -- the stored event is what it always was (its hash identifies the event in the database) --

@pytest.mark.parametrize(("fmt", "names", "keys", "stored"), [
    ("match", "ab", {}, {"unit": "match", "players": 2, "games": 3, "max_games": 7, "rounds": 1}),
    ("league", "abc", {}, {"unit": "league", "players": 3, "games": 5, "max_games": None, "rounds": 1}),
    ("single", "ab", {"rounds": 1}, {"unit": "single", "players": 2, "games": 1, "max_games": None,
                                     "rounds": 1}),
    ("round-robin", "abc", {"players": 3}, {"unit": "league", "players": 3, "games": 5,
                                            "max_games": None, "rounds": 1}),
    ("swiss", "abcde", {"games": 1}, {"unit": "match", "players": 2, "games": 1, "max_games": 3,
                                      "rounds": 3, "bye_score": 1.0}),
    ("knockout", "abc", {}, {"unit": "match", "players": 2, "games": 3, "max_games": 7, "rounds": 1,
                             "seeding": "config"}),
    ("gauntlet", "abc", {"candidates": ["a"], "unit": "single"},
     {"unit": "single", "players": 2, "games": 1, "max_games": None, "rounds": 1, "candidates": ["a"]}),
    ("sprt", "ab", {"elo1": 10, "max_games": 400},
     {"unit": "single", "players": 2, "games": 1, "max_games": None, "rounds": 1,
      "sprt": {"elo0": 0.0, "elo1": 10.0, "alpha": 0.05, "beta": 0.05, "max_games": 400}}),
    ("league", "ab", {"rule_set": "crazy-eights"}, {"unit": "league", "players": 2, "games": 0,
                                                     "max_games": None, "rounds": 1}),
])
def test_the_stored_event_is_unchanged(fmt, names, keys, stored):
    got = event(fmt, names, **keys)
    rule_set = keys.get("rule_set", "crazier-eights")
    expected = {"name": "e", "format": fmt, "unit": stored["unit"], "rule_set": rule_set, "options": {},
                "seed": 0, **{k: v for k, v in stored.items() if k != "unit"}, "entrants": list(names)}
    assert got == {**expected, "entrants": list(names)}
    assert list(got)[:11] == ["name", "format", "unit", "rule_set", "options", "seed", "players",
                              "games", "max_games", "rounds", "entrants"]


def test_switches_at_their_defaults_are_left_out_and_luck_adjusted_is_kept_when_true():
    plain = event("match", "ab")
    assert not {"duplicate", "play_all", "public_seeds", "luck_adjusted"} & set(plain)
    lucky = event("match", "ab", luck_adjusted=True, public_seeds=True)
    assert lucky["luck_adjusted"] is True and lucky["public_seeds"] is True
    assert {k: v for k, v in lucky.items() if k not in ("luck_adjusted", "public_seeds")} == plain
    for fmt in FormatName:  # every format takes it
        assert "luck_adjusted" in FORMATS[fmt].settings.model_fields


# -- one clear line per mistake: the file, the key, what is allowed ----------------------------

MISTAKES = [
    ("single", 'games = 3', "event.games: a single game has games = 1"),
    ("match", 'unit = "league"', "event.unit: only a round robin, a gauntlet, a Swiss, a knockout or an "
                                 "sprt event takes 'unit'"),
    ("match", 'luck_adjusted = "yes"', "event.luck_adjusted: expected true or false, got 'yes'"),
    ("league", 'players = 9', "event.players: must be at most 8, got 9"),
    ("round-robin", 'unit = "single"', "event.unit: a round robin takes unit 'match' or 'league', got 'single'"),
    ("round-robin", 'rounds = 0', "event.rounds: must be at least 1, got 0"),
    ("round-robin", 'bye_score = 0.5', "event.bye_score: only a Swiss takes 'bye_score'"),
    ("gauntlet", 'candidates = []', "event.candidates: expected a non-empty list of entrant names, got []"),
    ("gauntlet", "", "event: missing field 'candidates' (the entrants that play the pool)"),
    ("swiss", 'bye_score = 2', "event.bye_score: expected 1, 0.5 or 0, got 2"),
    ("swiss", 'rounds = 1.5', "event.rounds: expected an integer, got 1.5"),
    ("knockout", 'seeding = "luck"', "event.seeding: expected 'config' or 'rating', got 'luck'"),
    ("knockout", 'players = 3', "event.players: a knockout plays tables of 2, but players = 3"),
    ("sprt", 'alpha = 0.5', "event.alpha: expected a probability between 0 and 0.5, got 0.5"),
    ("sprt", 'elo0 = 3\nelo1 = 1', "event.elo1: elo1 must be above elo0, got elo0 = 3, elo1 = 1"),
    ("sprt", 'max_games = 1', "event.max_games: expected at least 2 games, got 1"),
    ("sprt", 'entrants = ["a", "b", "c"]', "event.entrants: an sprt event tests a candidate against one "
                                           "baseline: 2 entrants, got 3"),
    ("match", 'colour = "red"', "event.colour: unknown key (known: cluster, concurrency, duplicate, "
                                "entrants, format, games, luck_adjusted, max_games, name, options, play_all, "
                                "players, public_seeds, rule_set, seed)"),
    ("match", 'name = "  "', "event.name: expected a non-empty string, got '  '"),
    ("match", 'cluster = 8786', 'event.cluster: expected a scheduler address such as "tcp://host:8786", got 8786'),
]


@pytest.mark.parametrize(("fmt", "line", "message"), MISTAKES, ids=[f"{m[0]}:{m[1][:20]}" for m in MISTAKES])
def test_each_mistake_is_one_line_naming_the_file_the_key_and_what_is_allowed(tmp_path, fmt, line, message):
    names = '"a", "b"' if fmt in ("sprt", "match", "single") else '"a", "b", "c"'
    path = tmp_path / "e.toml"
    body = f'[event]\nname = "e"\nformat = "{fmt}"\nentrants = [{names}]\n{line}\n'
    for key in ("entrants", "name"):  # the line gives this key itself
        if line.startswith(f"{key} ="):
            body = re.sub(rf"^{key} = .*\n", "", body, count=1, flags=re.M)
    path.write_text(body + "".join(f'\n[[entrants]]\nname = "{n}"\nbuiltin = "random"\n' for n in "abc"))
    with pytest.raises(ConfigError) as info:
        load_config(path)
    assert str(info.value) == f"{path}: {message}"


@pytest.mark.parametrize(("text", "message"), [
    ('[limits]\ndecision_timeout = 0', "limits.decision_timeout: must be positive, got 0"),
    ('[limits]\nsandbox = "maybe"', 'limits.sandbox: expected "auto", "on" or "off", got \'maybe\''),
    ('[limits]\nspeed = 1', "limits.speed: unknown limit (known: cpu_seconds, decision_timeout, grace, "
                            "max_games, max_line_bytes, max_open_files, max_processes, max_rss_mb, "
                            "max_stderr_bytes, memory_mb, restart, sandbox, scratch_mb, startup_timeout, time_bank)"),
    ('[[entrants]]\nname = "c"\ncommand = []', "entrants[2] (c).command: expected a non-empty list of strings "
                                                "(argv), got []"),
    ('[[entrants]]\nname = "c"\ncommand = ["x"]\nlimits = { memory_mb = 1.5 }',
     "entrants[2] (c).limits.memory_mb: expected an integer, got 1.5"),
    ('[[entrants]]\nname = "c"\nbuiltin = "random"\nenv = {}', "entrants[2] (c).env: only command entrants "
                                                              "take this key"),
])
def test_limits_and_entrants_mistakes_name_the_key_too(tmp_path, text, message):
    path = tmp_path / "e.toml"
    path.write_text(textwrap.dedent('''\
        [event]
        name = "e"
        format = "match"
        entrants = ["a", "b"]
        ''') + "".join(f'\n[[entrants]]\nname = "{n}"\nbuiltin = "random"\n' for n in "ab") + "\n" + text + "\n")
    with pytest.raises(ConfigError) as info:
        load_config(path, check_commands=False)
    assert str(info.value) == f"{path}: {message}"


# -- planning and reporting -------------------------------------------------------------------


def test_each_format_plans_its_first_series():
    plan = {fmt: [s["entrants"] for s in formats.get(fmt).first_series(ev)]
            for fmt, ev in [("round-robin", event("round-robin")), ("knockout", event("knockout", "abcde")),
                            ("gauntlet", event("gauntlet", candidates=["c"])), ("match", event("match", "ab"))]}
    assert plan["round-robin"] == [["a", "b"], ["a", "c"], ["b", "c"]]
    assert plan["knockout"] == [["a"], ["d", "e"], ["b"], ["c"]]  # a bracket of 8: byes to the top seeds
    assert plan["gauntlet"] == [["c", "a"], ["c", "b"]]
    assert plan["match"] == [["a", "b"]]
    sprt = formats.get("sprt").first_series(event("sprt", "ab"))
    assert [s["entrants"] for s in sprt[:3]] == [["a", "b"], ["b", "a"], ["a", "b"]] and len(sprt) == 8


def _finished(items, winners):
    """Schedule items as finished series rows, ``winners[i]`` winning item i (None: a bye)."""
    rows = []
    for item, won in zip(items, winners):
        names = item["entrants"]
        rows.append({"idx": item["idx"], "round": item["round"], "kind": item["kind"], "status": "finished",
                     "outcome": "win", "winner_id": names.index(won) if won else 0,
                     "entrants": [{"entrant_id": i, "name": n, "seat": i, "wins": int(n == won),
                                   "points": 0, "placement": 1 if n == won or won is None else 2}
                                  for i, n in enumerate(names)]})
    return rows


def test_the_next_round_comes_from_the_results_and_ends_the_event():
    ko = event("knockout", "abcd")
    fmt = formats.get("knockout")
    first = fmt.first_series(ko)
    rows = _finished(first, ["a", "b"])
    final = fmt.next_series(None, 1, ko, rows, None)
    assert [s["entrants"] for s in final] == [["a", "b"]] and final[0]["round"] == 1 and final[0]["idx"] == 2
    assert fmt.next_series(None, 1, ko, rows + _finished(final, ["b"]), None) == []
    assert fmt.report(None, 1, ko, rows)["bracket"][0][0]["winner"] == "a"
    assert formats.get("round-robin").next_series(None, 1, event("round-robin"), rows, None) == []


def test_the_swiss_plays_its_rounds_and_reports_its_table():
    sw = event("swiss", "abcd", rounds=2, games=1)
    fmt = formats.get("swiss")
    first = fmt.first_series(sw)
    rows = _finished(first, [t["entrants"][0] for t in first])
    second = fmt.next_series(None, 1, sw, rows, None)
    assert len(second) == 2 and {s["round"] for s in second} == {1}
    winners_met = {frozenset(s["entrants"]) for s in second}
    assert frozenset(first[0]["entrants"][:1] + first[1]["entrants"][:1]) in winners_met  # 1-0 meets 1-0
    assert fmt.next_series(None, 1, sw, rows + _finished(second, [s["entrants"][0] for s in second]), None) == []
    table = fmt.report(None, 1, sw, rows)["swiss"]
    assert [r["score"] for r in table] == [1.0, 1.0, 0.0, 0.0]
    assert fmt.report_lines({"swiss": table})[0].split()[:2] == ["rank", "entrant"]
    assert formats.report_lines({"swiss": table}) == fmt.report_lines({"swiss": table})


def test_only_the_format_objects_look_at_the_format_name():
    """The `if fmt == ...` switches are gone from config, events, results and commands."""
    switch = re.compile(r'(fmt|\["format"\]|\.get\("format"\))\s*(==|!=|in|not in)\s')
    for path in [ROOT / "tourney" / "config.py", *sorted((ROOT / "tourney" / "events").glob("*.py")),
                 *sorted((ROOT / "tourney" / "commands").glob("*.py")), ROOT / "tourney" / "report.py"]:
        assert not switch.search(path.read_text()), path
    assert "tourney.events" not in (ROOT / "tourney" / "report.py").read_text()


def test_the_result_reasons_enum_and_their_words_agree():
    from tourney import narrate
    from tourney.events.reasons import Reason

    assert {str(r) for r in Reason} == set(narrate.REASONS)

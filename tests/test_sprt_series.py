"""SPRT series of several games per start of the bots, and the bots of a series started and ended
side by side: the same games and the same answer at any concurrency, nothing left running, and
each bot still ended by its own goodbye (docs/scale.md, "Time to a verdict")."""

import json
import shutil
import sqlite3
from contextlib import ExitStack
from pathlib import Path

import pytest
from helpers import RANDOM_BOT, ROOT, all_pids, leftovers, processes_with
from typer.testing import CliRunner

import tourney.commands  # noqa: F401  (registers the commands)
from tourney.app import app
from tourney.bots.entrants import Entrant, EntrantSpec, Limits, SubprocessEntrant
from tourney.bots.referee import play_game
from tourney.config import ConfigError, parse_config
from tourney.events.play import side_by_side
from tourney.events.series import SeriesState
from tourney.formats.sequential import BATCH

SMART_BOT = str(ROOT / "examples" / "bots" / "smart_bot.py")


def config(tmp_path: Path) -> tuple[Path, Path]:
    """Two subprocess bots of a copy of the example bots at a path of this test alone (so that the
    processes the run leaves, if any, can be told apart from every other)."""
    bots = tmp_path / "bots"
    bots.mkdir()
    smart = shutil.copy(SMART_BOT, bots / "smart_bot.py")
    rando = shutil.copy(RANDOM_BOT, bots / "random_bot.py")
    cfg = tmp_path / "e.toml"
    cfg.write_text(
        '[event]\nname = "v"\nformat = "sprt"\nentrants = ["smart", "rando"]\n\n'
        f'[[entrants]]\nname = "smart"\ncommand = ["{{python}}", "{smart}"]\n\n'
        f'[[entrants]]\nname = "rando"\ncommand = ["{{python}}", "{rando}"]\n')
    return cfg, bots


def run_sprt(cfg: Path, db: Path, *args: str) -> dict:
    r = CliRunner().invoke(app, ["sprt", "smart", "rando", "--config", str(cfg), "--elo0", "0",
                                 "--elo1", "200", "--max-games", "64", "--public-seeds",
                                 "--db", str(db), "--json", *args])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)["sprt"]


def stored(db: Path) -> tuple[list, list]:
    """Every game (series, game, seed, first player, choices, winners) and every series
    (index, games played, entrants in seat order), in order."""
    con = sqlite3.connect(db)
    try:
        games = con.execute(
            "SELECT s.idx, g.idx, r.seed, g.first_player, r.choices_z, g.winners FROM games g "
            "JOIN series s ON s.id = g.series_id JOIN replays r ON r.game_id = g.id "
            "ORDER BY s.idx, g.idx").fetchall()
        series = con.execute("SELECT idx, games_played FROM series ORDER BY idx").fetchall()
        return games, series
    finally:
        con.close()


def test_two_games_a_series_same_games_and_answer_at_any_concurrency_and_no_bot_left(tmp_path):
    cfg, bots = config(tmp_path)
    one = run_sprt(cfg, tmp_path / "one.db", "-j", "1")
    two = run_sprt(cfg, tmp_path / "two.db", "-j", "2")
    assert processes_with(str(bots), also="", zombies=False) == []  # every bot of both runs has ended
    assert one == two and one["verdict"] in ("H0 accepted", "H1 accepted")
    assert one["games"] % BATCH == 0
    games_one, series_one = stored(tmp_path / "one.db")
    assert (games_one, series_one) == stored(tmp_path / "two.db")
    assert len(games_one) == one["games"]
    # two games a series: half as many bot starts as series of one game
    assert [played for _, played in series_one] == [2] * (one["games"] // 2)
    assert [idx for idx, _ in series_one] == list(range(one["games"] // 2))


def test_one_game_a_series_is_the_event_it_always_was(tmp_path):
    cfg, _ = config(tmp_path)
    got = run_sprt(cfg, tmp_path / "one.db", "--games-per-series", "1", "--max-games", "8")
    _, series = stored(tmp_path / "one.db")
    assert [played for _, played in series] == [1] * got["games"]
    con = sqlite3.connect(tmp_path / "one.db")
    event = json.loads(con.execute("SELECT config FROM events").fetchone()[0])
    con.close()
    # an event stored before the setting existed had no key: its hash is unchanged
    assert "games_per_series" not in json.dumps(event)


@pytest.mark.parametrize("value", [0, 3, 16])
def test_games_per_series_must_divide_a_batch(value):
    raw = {"event": {"name": "s", "seed": 1, "format": "sprt", "entrants": ["a", "b"],
                     "games_per_series": value},
           "entrants": [{"name": n, "builtin": "random"} for n in "ab"]}
    with pytest.raises(ConfigError, match="games_per_series is 1, 2, 4 or 8"):
        parse_config(raw)


def test_a_series_of_single_games_draws_each_first_player_and_is_decided_as_a_league():
    state = SeriesState("single", 2, seed=3, games_target=2)
    firsts = []
    for winner in (0, 1):
        firsts.append(state.next_first_player())
        assert state.info()["of"] == 2
        state.add({"winners": [winner], "points": [0, 5] if winner == 0 else [9, 0],
                   "placements": [1, 2] if winner == 0 else [2, 1], "first_player": firsts[-1],
                   "reason": "out"})
    assert state.over()
    # the same draws as two series of one game would make from this seed: never the last result
    again = SeriesState("single", 2, seed=3, games_target=2)
    assert [again.next_first_player(), again.next_first_player()] == firsts
    result = state.result()  # penalty points: 5 against 9, the fewer first
    assert result["games_played"] == 2 and result["winner"] == 1
    assert [s["placement"] for s in result["seats"]] == [2, 1]


def test_bots_started_and_ended_side_by_side_exit_on_their_goodbye():
    # limits far above what a loaded machine needs: the exits asserted are the bots' own
    roomy = Limits(startup_timeout=60.0, decision_timeout=30.0, grace=30.0)
    specs = [EntrantSpec(f"r{i}", command=("{python}", RANDOM_BOT), limits=roomy) for i in range(2)]
    with ExitStack() as stack:
        bots = [SubprocessEntrant(spec, seed=i) for i, spec in enumerate(specs)]
        for bot in bots:
            stack.enter_context(bot)
        side_by_side(stack, bots)
        assert all(b.running for b in bots)  # both launched before either was greeted
        record = play_game(list[Entrant](bots), seed=5)
        assert not record.faults
    assert [b.exit_how for b in bots] == ["exited", "exited"]  # not terminated, not killed
    assert all(b.exit_status == 0 for b in bots)
    # nothing left in the bots' process groups (a zombie adopted from an earlier test, since
    # this process is a subreaper, is no bot of this test's)
    groups = all_pids(*bots)
    assert [p for p in leftovers(groups) if p[3] in groups] == []


def test_a_test_stopped_inside_a_series_of_two_games_resumes_to_the_same_games_and_answer():
    from tourney.events import runner
    from tourney.formats import sequential as sprt
    from tourney.results import store

    raw = {"event": {"name": "s", "format": "sprt", "seed": 3, "elo0": 0, "elo1": 150,
                     "public_seeds": True, "games_per_series": 2},
           "entrants": [{"name": "g", "builtin": "greedy"}, {"name": "r", "builtin": "random"}]}
    cfg = parse_config(raw, base_dir=str(ROOT))

    def play(db, event_id, stop_after=None):
        more = lambda: runner.next_round_tasks(db, event_id, cfg)  # noqa: E731
        tasks = runner.pending_tasks(db, event_id, cfg) or more()
        run = runner.Runner(db, event_id, tasks, 1, more=more)
        if stop_after is not None:
            handle = run.handle

            def handle_then_stop(msg):
                handle(msg)
                if store.series_rows(db, event_id) and sum(
                        1 for _ in db.execute("select id from games")) >= stop_after:
                    raise KeyboardInterrupt  # as a kill after that game was stored
            run.handle = handle_then_stop  # type: ignore[method-assign]
        run.run()

    def games(db):
        return [tuple(r) for r in db.execute("select s.idx, g.idx, g.seed, g.winners from games g join "
                                             "series s on s.id = g.series_id order by s.idx, g.idx")]

    whole = store.open_db(":memory:")
    whole_id, _ = runner.prepare_event(whole, cfg, "test")
    play(whole, whole_id)
    cut = store.open_db(":memory:")
    cut_id, _ = runner.prepare_event(cut, cfg, "test")
    with pytest.raises(KeyboardInterrupt):
        play(cut, cut_id, stop_after=BATCH + 3)  # the first game of a series of the second batch
    assert len(games(cut)) == BATCH + 3
    play(cut, cut_id)  # resumed: that series' stored game is replayed to its bots, then one more
    assert games(cut) == games(whole)
    assert {played for _, played in cut.execute("select idx, games_played from series")} == {2}
    for db, event_id in ((whole, whole_id), (cut, cut_id)):
        store.finish_event(db, event_id)
    assert sprt.report(cut, cut_id, cfg.event) == sprt.report(whole, whole_id, cfg.event)
    assert sprt.report(whole, whole_id, cfg.event)["games"] > BATCH + 3

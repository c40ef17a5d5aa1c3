"""The SPRT as an event: batches until the test answers, the same answer at any concurrency,
a cap, mirror pairs, and one clear line for a bad setting."""

import json

import pytest
from typer.testing import CliRunner

import tourney.commands  # noqa: F401  (registers the commands)
from tourney.app import app
from tourney.config import ConfigError, parse_config
from tourney.formats.sequential import BATCH


def sprt(tmp_path, *args, db="t.db"):
    r = CliRunner().invoke(app, ["sprt", *args, "--public-seeds", "--db", str(tmp_path / db), "--json"])
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def test_a_clearly_better_candidate_is_accepted_and_the_answer_does_not_depend_on_workers(tmp_path):
    one = sprt(tmp_path, "greedy", "random", "--elo0", "0", "--elo1", "150", "-j", "1", db="a.db")
    two = sprt(tmp_path, "greedy", "random", "--elo0", "0", "--elo1", "150", "-j", "2", db="b.db")
    got = one["sprt"]
    assert got["verdict"] == "H1 accepted" and got["llr"] >= got["upper_bound"] == pytest.approx(2.9444, abs=1e-4)
    assert got["games"] % BATCH == 0 and got["model"] == "trinomial" and got["pairs"] is None
    assert two["sprt"] == got  # evaluated between batches only
    games = json.loads(CliRunner().invoke(app, ["games", "--db", str(tmp_path / "a.db"), "--json",
                                                "--limit", "0"]).stdout)["games"]
    assert len(games) == got["games"]


def test_equal_bots_accept_h0(tmp_path):
    got = sprt(tmp_path, "random", "random", "--elo0", "0", "--elo1", "300")["sprt"]
    assert got["verdict"] == "H0 accepted" and got["llr"] <= got["lower_bound"]


def test_the_cap_ends_an_undecided_test(tmp_path):
    got = sprt(tmp_path, "greedy", "random", "--elo0", "0", "--elo1", "5", "--max-games", str(BATCH))["sprt"]
    assert got["games"] == BATCH and got["verdict"] == "inconclusive"
    assert got["lower_bound"] < got["llr"] < got["upper_bound"]


def test_mirror_pairs_use_the_pentanomial_model(tmp_path):
    got = sprt(tmp_path, "greedy", "random", "--elo0", "0", "--elo1", "150", "--duplicate")["sprt"]
    assert got["model"] == "pentanomial" and got["games"] == 2 * got["pairs"]
    assert got["verdict"] == "H1 accepted" and got["pairs"] % BATCH == 0


@pytest.mark.parametrize("event, message", [
    ({"format": "sprt", "entrants": ["a", "b", "c"]}, "2 entrants, got 3"),
    ({"format": "sprt", "elo0": 5, "elo1": 5}, "elo1 must be above elo0"),
    ({"format": "sprt", "alpha": 0.7}, "between 0 and 0.5"),
    ({"format": "round-robin", "elo1": 5}, "only an sprt event takes 'elo1'"),
])
def test_bad_settings_are_one_clear_line(event, message):
    raw = {"event": {"name": "s", "seed": 1, **event},
           "entrants": [{"name": n, "builtin": "random"} for n in "abc"]}
    if "entrants" not in event:
        raw["event"]["entrants"] = ["a", "b"]
    with pytest.raises(ConfigError, match=message):
        parse_config(raw)


def test_the_cli_refuses_a_bad_band_with_exit_2(tmp_path):
    r = CliRunner().invoke(app, ["sprt", "greedy", "random", "--elo0", "5", "--elo1", "5",
                                 "--db", str(tmp_path / "t.db")])
    assert r.exit_code == 2 and "elo1 must be above elo0" in r.stderr


def test_an_interrupted_test_resumes_to_the_same_answer():
    from pathlib import Path

    from tourney.events import runner
    from tourney.formats import sequential as sprt
    from tourney.results import store

    raw = {"event": {"name": "s", "format": "sprt", "seed": 3, "elo0": 0, "elo1": 150, "public_seeds": True},
           "entrants": [{"name": "g", "builtin": "greedy"}, {"name": "r", "builtin": "random"}]}
    cfg = parse_config(raw, base_dir=str(Path(__file__).parent.parent))

    def play(db, event_id, batches_only=False):
        more = None if batches_only else (lambda: runner.next_round_tasks(db, event_id, cfg))
        # as tourney run does: the unfinished series, or else the next batch from the stored ones
        tasks = runner.pending_tasks(db, event_id, cfg) or (more() if more else [])
        runner.Runner(db, event_id, tasks, 1, more=more).run()

    def games(db):
        return [tuple(r) for r in db.execute("select g.seed, g.winners from games g join series s "
                                             "on s.id = g.series_id order by s.idx, g.idx")]

    whole = store.open_db(":memory:")
    whole_id, _ = runner.prepare_event(whole, cfg, "test")
    play(whole, whole_id)
    cut = store.open_db(":memory:")
    cut_id, _ = runner.prepare_event(cut, cfg, "test")
    play(cut, cut_id, batches_only=True)  # stopped after the first batch
    assert len(games(cut)) == BATCH < len(games(whole))
    play(cut, cut_id)  # resumed: the next batches come from the stored results
    assert games(cut) == games(whole)
    for db, event_id in ((whole, whole_id), (cut, cut_id)):
        store.finish_event(db, event_id)
    assert sprt.report(cut, cut_id, cfg.event) == sprt.report(whole, whole_id, cfg.event)
    assert sprt.report(whole, whole_id, cfg.event)["verdict"] == "H1 accepted"

"""The entrant ``human``: whole games played through a real pseudo-terminal, and what it shows."""

from __future__ import annotations

import io
import os
import random
import re
import sys
from pathlib import Path

import pexpect
import pytest

import engine
from tourney.bots.entrants import EntrantSpec, open_entrant
from tourney.bots.human import HumanEntrant, screen
from tourney.bots.referee import play_game
from tourney.results import store

ROOT = Path(__file__).resolve().parent.parent
PROMPT = r"your choice \(1-(\d+), \? for help\): "


def spawn(tmp_path, *args: str) -> pexpect.spawn:
    env = dict(os.environ, PYTHONPATH=str(ROOT), COLUMNS="200", TERM="dumb")
    # public seeds: the same known deals every run (a secret would deal afresh, and a deal where the
    # person always takes the last option can run very long)
    child = pexpect.spawn(sys.executable, ["-m", "tourney", "play", *args, "--public-seeds", "--db",
                                           str(tmp_path / "t.db")],
                         cwd=str(tmp_path), env=env, encoding="utf-8", timeout=60, dimensions=(50, 200))
    child.delaybeforesend = None  # pexpect waits 50 ms before every send by default
    return child


@pytest.mark.parametrize(("rule_set", "help_card"), [
    ("crazier-eights", "Trade"), ("crazy-eights", None), ("super-crazy-eights", None)])
def test_a_person_plays_a_whole_game_at_a_terminal(tmp_path, rule_set, help_card):
    child = spawn(tmp_path, "human", "greedy", "--rule-set", rule_set, "--seed", "3")
    child.expect(r"=== .*you \(human\) play against greedy")
    child.expect(PROMPT)
    screen_text = child.before
    assert "your hand" in screen_text and "top of the discard pile: " in screen_text
    assert "greedy: " in screen_text and " in hand" in screen_text
    assert re.search(r"^  1\. ", screen_text, re.M)
    # help, the rules, a card's text, and a wrong answer: each answered, then the same prompt
    child.sendline("?")
    child.expect("Type the number of an option")
    child.expect(PROMPT)
    child.sendline("? rules")
    child.expect({"crazier-eights": "Crazier Eights: ", "crazy-eights": "Crazy Eights: ",
                  "super-crazy-eights": "Super Crazy Eights: "}[rule_set])
    child.expect(PROMPT)
    if help_card:
        child.sendline(f"? {help_card}")
        child.expect("Look at another player's hand and swap one of your cards")
        child.expect(PROMPT)
    child.sendline("nonsense")
    child.expect("'nonsense' is not an option")
    child.expect(PROMPT)
    decisions = 0
    while True:
        n = int(child.match.group(1))
        child.sendline(str(n))  # the last option: ends a turn, draws or passes; games stay short
        decisions += 1
        i = child.expect([PROMPT, r"result: ([^\r\n]*)\r\n"])
        if i == 1:
            break
    result_line = child.match.group(1)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    assert decisions > 1
    assert "human" in result_line and "greedy" in result_line
    db = store.open_db(str(tmp_path / "t.db"), readonly=True)
    games = store.list_games(db)
    assert games and [s["entrant"] for s in games[0]["seats"]] == ["human", "greedy"]


def test_ctrl_c_leaves_cleanly_with_exit_130_and_nothing_stored(tmp_path):
    child = spawn(tmp_path, "human", "greedy", "--rule-set", "crazy-eights", "--seed", "3")
    child.expect(PROMPT)
    child.sendintr()
    child.expect("interrupted")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130
    assert "Traceback" not in child.before
    db = store.open_db(str(tmp_path / "t.db"), readonly=True)
    assert db["games"].count == 0


class OnlyTheSeat:
    """A game that lets the human entrant read the pending decision, the labels of its options
    and the view of one seat, and nothing else."""

    def __init__(self, game, seat):
        self._game, self._seat = game, seat

    @property
    def pending(self):
        return self._game.pending

    def label(self, option_id):
        return self._game.label(option_id)

    def view(self, seat):
        assert seat == self._seat, "the human entrant asked for another seat's view"
        return self._game.view(seat)


class Keys:
    """A player at the keyboard who types a random option number for the pending decision."""

    def __init__(self, game, seed):
        self.game, self.rng = game, random.Random(seed)

    def readline(self):
        return f"{self.rng.randint(1, len(self.game.pending.options))}\n"


#: every decision kind of each rule set (found by playing random games), all met by the human seat
KINDS = {
    "crazier-eights": {"card", "colour", "destroy", "main", "order", "player", "players", "put_back", "save",
                       "top_or_bottom", "trade_give", "trade_take", "yes_no"},
    "crazy-eights": {"suit", "turn"},
    "super-crazy-eights": {"last_card", "suit", "turn", "score"},
}


@pytest.mark.parametrize("rule_set", sorted(KINDS))
def test_the_human_seat_meets_every_decision_kind_reading_only_its_own_view(rule_set):
    met: set[str] = set()
    for seed in range(120):
        players = 3 if rule_set == "crazier-eights" else 2
        game = engine.new_game(rule_set, players=players, seed=seed)
        seat = seed % players
        out = io.StringIO()
        human = HumanEntrant(EntrantSpec("ann", builtin="human"), stdin=Keys(game, seed), stdout=out)
        human.meet(["ann", "bob", "cy"][:players])
        human.begin_game({"seat": seat, "players": players, "rule_set": rule_set, "cards": game.card_table(),
                          "options": game.options, "first_player": 0})
        rng = random.Random(-seed)
        while game.pending is not None:
            if game.pending.player == seat:
                met.add(game.pending.kind)
                game.apply(human.decide(OnlyTheSeat(game, seat), seat, 1))
            else:
                game.apply(rng.choice(game.pending.options))
        if met >= KINDS[rule_set]:
            break
    assert met >= KINDS[rule_set]
    assert "{" not in out.getvalue() and "player 0" not in out.getvalue()


def test_the_screen_shows_the_hand_by_name_and_never_the_other_hand():
    game = engine.new_game("crazier-eights", players=2, seed=5)
    seat = game.pending.player
    other = 1 - seat
    from tourney import narrate

    table = narrate.table_for(game, ["ann", "bob"])
    view = game.view(seat)
    text = screen(table, view, "choose", ["end the turn"])
    names = {c: d["name"] for c, d in game.card_table().items()}
    for c in game.hands[seat]:
        assert names[c] in text
    public = set(game.discard) | {c for cs in game.in_play for c in cs} | set(game.hands[seat])
    for c in game.hands[other]:
        if c not in public:
            assert names[c] not in text
    assert f"{['ann', 'bob'][other]}: {len(game.hands[other])} cards in hand" in text


def test_end_of_input_forfeits_the_seat():
    with open_entrant(EntrantSpec("g", builtin="greedy"), 1) as g:
        human = HumanEntrant(EntrantSpec("ann", builtin="human"), stdin=io.StringIO(""), stdout=io.StringIO())
        record = play_game([human, g], rule_set="crazy-eights", seed=2, first_player=0)
    assert record.faults == {0: "crash"}
    assert record.result.winners == [1]


def test_a_match_against_a_person_hides_the_full_log_even_with_verbose(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(ROOT), TERM="dumb")
    child = pexpect.spawn(sys.executable, ["-m", "tourney", "match", "human", "greedy", "--rule-set", "crazy-eights",
                                           "--best-of", "3", "-v", "--seed", "2", "--public-seeds", "--db",
                                           str(tmp_path / "t.db")],
                          cwd=str(tmp_path), env=env, encoding="utf-8", timeout=60, dimensions=(50, 200))
    child.delaybeforesend = None
    seen = ""
    while child.expect([PROMPT, r"match: [^\r\n]*\r\n"]) == 0:
        seen += child.before
        child.sendline(child.match.group(1))
    seen += child.before + child.match.group(0)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    assert "game: crazy-eights, seed" not in seen  # the referee's log (every hand) is not shown
    assert seen.count("=== crazy-eights (game ") >= 2  # the person is told each game of the match

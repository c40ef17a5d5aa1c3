"""Does collusion detection catch a planted pair, and how often does it accuse honest ones?

    python bench/collusion.py [--events 20] [--games 2000] [--workers 2] [--seed 1] [--alpha 0.05]

Each event seats six entrants at tables of four of crazier-eights, as a round robin does: table i
holds entrants i..i+3 of six, each table's order planned by :func:`tourney.seating.plan` (two
rounds' worth, balanced so that each entrant sits after each other as often as before it), and
each table plays a series of :data:`SERIES_GAMES` games whose order changes game by game as a
league's does (:func:`tourney.seating.williams_sequence`), the series points visible to the bots.

A *planted* event has two colluders among them: greedy bots that never aim a hostile effect at
each other (they pick the leading opponent other than the partner, or themselves), never destroy
the partner's cards, and feed each other (Trade goes to the partner when it can, giving it an
eight where greedy would). An *honest* event has the same six seats with plain greedy bots in
place of the colluders. The other four are honest bots that aim by what they see:
:class:`SeatAimer` (always the next seat), :class:`ScoreAimer` (the series leader),
:class:`RandomAimer` (any opponent at random) and the random bot; greedy itself aims at the
fewest cards in hand.

Games are played in process (the built-in bots, no subprocesses, no database) and examined with
the same code ``tourney fairplay`` runs on stored games (:mod:`tourney.results.fairplay`). A
planted event counts as detected when the planted pair is flagged; an honest event counts as a
false alarm when any pair is flagged. Both rates are measured, never assumed. The line before the
last gives the share of planted events in which an honest pair was flagged as well.

Last line: ``detection_rate=<share of planted events flagged> false_alarm_rate=<share of honest
events flagged> games=<games per event>``.
"""

from __future__ import annotations

import argparse
import multiprocessing
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import engine
from engine.bots import HOSTILE, GreedyBot, RandomBot
from tourney import seating
from tourney.results.fairplay import DEFAULT_ALPHA, GameFacts, analyse, observe

PLANTED = ("colluder-a", "colluder-b")
OTHERS = ("next-seat", "leader", "anyone", "random")
#: games of one table's series (its points are the scores a bot may aim by)
SERIES_GAMES = 4


class Aimer(GreedyBot):
    """Greedy, but it aims its hostile effects (and card destruction) by :meth:`pick`, a rule
    that never asks who an opponent is: an honest bot the checks must never accuse."""

    def __init__(self, seed: int, scores: list[int] | None = None):
        super().__init__(seed)
        self.scores = scores

    def pick(self, foes: list[int], view) -> int:
        raise NotImplementedError

    def _player(self, decision, view):
        me = view["player"]
        players = [int(o[7:]) for o in decision.options]
        foes = [p for p in players if p != me]
        if decision.source not in HOSTILE or not foes:
            return super()._player(decision, view)
        return f"player:{self.pick(foes, view)}"

    def _players(self, decision, view):
        me = view["player"]
        foes = [int(o[7:]) for o in decision.options if o.startswith("player:") and int(o[7:]) != me]
        return f"player:{self.pick(foes, view)}" if foes else super()._players(decision, view)

    def _destroy(self, decision, view):
        me = view["player"]
        owner = {c: q for q, cards in enumerate(view["in_play"]) for c in cards}
        theirs = {}
        for o in decision.options:
            if o.startswith("card:") and owner.get(int(o[5:]), me) != me:
                theirs.setdefault(owner[int(o[5:])], o)
        return theirs[self.pick(sorted(theirs), view)] if theirs else decision.options[-1]


class SeatAimer(Aimer):
    """Always the first opponent at or after the next seat (seat + 1, round the table)."""

    def pick(self, foes, view):
        me, n = view["player"], view["players"]
        return min(foes, key=lambda p: (p - me) % n)


class ScoreAimer(Aimer):
    """The series leader (fewest points so far; the nearest seat on a tie), or the most cards in
    hand before the series has a score."""

    def pick(self, foes, view):
        me, n = view["player"], view["players"]
        if not self.scores:
            return max(foes, key=lambda p: (view["hand_sizes"][p], -((p - me) % n)))
        return min(foes, key=lambda p: (self.scores[p], (p - me) % n))


class RandomAimer(Aimer):
    """Any opponent, uniformly at random."""

    def pick(self, foes, view):
        return self.rng.choice(foes)


AIMERS = {"next-seat": SeatAimer, "leader": ScoreAimer, "anyone": RandomAimer}


class Colluder(GreedyBot):
    """Greedy, except towards ``partner`` (a seat): never hostile to it, and it feeds it."""

    def __init__(self, seed: int, partner: int | None):
        super().__init__(seed)
        self.partner = partner
        self.trading_with_partner = False

    def _player(self, decision, view):
        players = [int(o[7:]) for o in decision.options]
        me, partner = view["player"], self.partner
        if partner is None or partner not in players or decision.source not in HOSTILE:
            return super()._player(decision, view)
        if decision.source == "Trade":  # feeding: hand the partner a card
            self.trading_with_partner = True
            return f"player:{partner}"
        foes = [p for p in players if p not in (me, partner)]
        if foes:
            return f"player:{min(foes, key=lambda p: view['hand_sizes'][p])}"
        return f"player:{me}" if me in players else f"player:{partner}"

    def _players(self, decision, view):
        partner = self.partner
        if partner is None:
            return super()._players(decision, view)
        me = view["player"]
        foes = [int(o[7:]) for o in decision.options if o.startswith("player:") and int(o[7:]) not in (me, partner)]
        if foes:
            return f"player:{min(foes, key=lambda p: view['hand_sizes'][p])}"
        return "done" if "done" in decision.options else decision.options[0]

    def _destroy(self, decision, view):
        spared = set(view["in_play"][view["player"]])
        if self.partner is not None:
            spared |= set(view["in_play"][self.partner])
        theirs = [o for o in decision.options if o.startswith("card:") and int(o[5:]) not in spared]
        return theirs[0] if theirs else decision.options[-1]

    def _trade_take(self, decision, view):
        if not self.trading_with_partner:
            return super()._trade_take(decision, view)
        cards = [o for o in decision.options if o.startswith("card:")]  # take what it can spare
        return min(cards, key=lambda o: self._info(int(o[5:])).get("rank") == "8")

    def _trade_give(self, decision, view):
        if not self.trading_with_partner:
            return super()._trade_give(decision, view)
        self.trading_with_partner = False
        cards = [o for o in decision.options if o.startswith("card:")]
        return max(cards, key=lambda o: self._info(int(o[5:])).get("rank") == "8")


def lineups(names: list[str], players: int = 4) -> list[list[str]]:
    """The round robin's tables: table i holds entrants i, i+1, ..., i+players-1 (mod n)."""
    n = len(names)
    return [[names[(i + j) % n] for j in range(players)] for i in range(n)]


def play_game(seated: list[str], seed: int, planted: bool,
              scores: list[int] | None = None) -> tuple[GameFacts, list[int]]:
    """One game seated as ``seated``; ``scores``: each seat's series points so far (None in the
    series' first game)."""
    game = engine.new_game("crazier-eights", players=len(seated), seed=seed)
    seats = {name: s for s, name in enumerate(seated)}
    bots = []
    for s, name in enumerate(seated):
        bot_seed = seed * 7 + s
        if name == "random":
            bots.append(RandomBot(bot_seed))
        elif name in AIMERS:
            bots.append(AIMERS[name](bot_seed, scores))
        elif planted and name in PLANTED:
            partner = PLANTED[1] if name == PLANTED[0] else PLANTED[0]
            bots.append(Colluder(bot_seed, seats.get(partner)))
        else:
            bots.append(GreedyBot(bot_seed))
    table = game.card_table()
    for bot in bots:
        bot.start(table)

    def steps():
        while (decision := game.pending) is not None:
            choice = bots[decision.player].choose(decision, lambda: game.view(decision.player))
            yield game, choice
            game.apply(choice)

    aims = observe(steps(), scores=scores)
    return GameFacts(tuple(seated), tuple(game.result.placements), aims), list(game.result.points)


def seatings(seed: int, names: list[str] | None = None, games: int = 0) -> list[list[str]]:
    """The seating of each game of an event: the round robin's tables in planned orders, each
    table a series of :data:`SERIES_GAMES` games in the Williams sequence's orders."""
    names = names or [*PLANTED, *OTHERS]
    tables = seating.plan(lineups(names) * 2, random.Random(seed))
    rows = seating.williams_sequence(4)
    out: list[list[str]] = []
    while len(out) < games:
        for t in tables:
            out.extend([t[slot] for slot in rows[g % len(rows)]] for g in range(SERIES_GAMES))
    return out[:games]


def play_event(games: int, seed: int, planted: bool) -> list[GameFacts]:
    """One event of ``games`` games; the colluders (or their honest stand-ins) sit next to each
    other in the round robin's order, so they share half the tables."""
    out = []
    totals: dict[str, int] = {}
    for g, seated in enumerate(seatings(seed, games=games)):
        if g % SERIES_GAMES == 0:
            totals = {}
        scores = [totals[name] for name in seated] if totals else None
        facts, points = play_game(seated, seed * 1_000_003 + g, planted, scores)
        for name, p in zip(seated, points):
            totals[name] = totals.get(name, 0) + p
        out.append(facts)
    return out


def run_one(job: tuple[int, int, bool, float]) -> tuple[bool, bool, bool, list[str], float]:
    """(planted, the planted pair flagged, another pair flagged, every flagged pair with its
    signals as text, seconds)."""
    games, seed, planted, alpha = job
    start = time.perf_counter()
    data = analyse(play_event(games, seed, planted), alpha)
    flagged = [f"{' + '.join(p['entrants'])} ({', '.join(p['flagged'])})" for p in data["pairs"] if p["flagged"]]
    caught = sorted(PLANTED) in data["flagged"]
    others = any(pair != sorted(PLANTED) for pair in data["flagged"]) if planted else bool(data["flagged"])
    return planted, caught, others, flagged, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=20, help="events of each kind (planted, honest)")
    parser.add_argument("--games", type=int, default=2000, help="games per event")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--alpha", type=float, default=DEFAULT_ALPHA)
    args = parser.parse_args()
    jobs = [(args.games, args.seed * 10_000 + i, planted, args.alpha)
            for i in range(args.events) for planted in (True, False)]
    detected = alarms = collateral = 0
    with multiprocessing.Pool(args.workers) as pool:
        for planted, caught, others, flagged, seconds in pool.imap_unordered(run_one, jobs):
            kind = "planted" if planted else "honest"
            print(f"{kind} event: flagged={flagged or 'none'} ({seconds:.0f} s)", flush=True)
            if planted:
                detected += caught
                collateral += others
            else:
                alarms += others
    print(f"events={args.events} per kind, alpha={args.alpha}, seed={args.seed}")
    # an honest pair flagged beside the planted one: the colluders change everyone's results
    print(f"planted events with an honest pair flagged too: {collateral / args.events:.3f}")
    print(f"detection_rate={detected / args.events:.3f} false_alarm_rate={alarms / args.events:.3f} "
          f"games={args.games}")


if __name__ == "__main__":
    main()

"""The rules of one series (single game, best-of-N match, points league, legs): who plays
first, when it is over, and its result. Pure and deterministic from the series seed."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

import engine
from tourney import seating as balanced

#: a leg that never reaches its end (crazy-eights' high scoring with blocked deals scores nothing)
#: is stopped after this many deals and decided on its totals
MAX_DEALS_PER_LEG = 1000


@dataclass
class SeriesState:
    """The running state of one series: whose turn to start, when it is over, its result.

    Deterministic from ``seed`` and the games added, so a resumed series continues exactly.

    A **leg** is one game of the rule set as its rules define a game: a single deal, or for a
    rule set with series rules (``series_over``: crazy-eights to 100 points, super-crazy-eights
    fifteen deals) a run of deals until the rule set says it is over. Matches and single games
    count legs; a league counts deals (``games_target`` of them), or plays one leg when
    ``games_target`` is 0. Every deal is one stored game.

    **Duplicate mode** (``duplicate=True``): every deal (or every leg, when legs are runs of
    deals) is played once per cyclic rotation of the entrants over the seats, with the same cards
    and the same first seat; the ``players`` games (or legs) of one deal form a *duplicate set*,
    which is atomic (the series can only end between sets). Counts (``wins``, ``points``) are
    kept per *slot*, the entrant's place in the series' list (:meth:`seating` maps seats to
    slots); a match is best of ``games_target`` sets, a league plays ``games_target`` sets (one
    set of one leg when it is 0), a single game is one set. A set is won by the entrant with the
    most games (legs) won in it, then the best points total of the set; otherwise it is drawn.

    ``play_all``: a match plays all ``games_target`` games (sets) even after a majority, and
    goes on past them only while undecided (up to ``max_games``).
    """

    kind: str
    players: int
    seed: int
    games_target: int
    max_games: int | None = None
    rule_set: str | None = None
    options: dict | None = None
    wins: list[int] = field(default_factory=list)
    points: list[int] = field(default_factory=list)
    games: list[dict] = field(default_factory=list)
    duplicate: bool = False
    play_all: bool = False

    def __post_init__(self):
        self.rng = random.Random(self.seed)
        self.wins = [0] * self.players
        self.points = [0] * self.players
        if self.kind == "match" and self.max_games is None:
            self.max_games = 2 * self.games_target + 1
        #: the rule set's module when legs are runs of deals, else None (a leg is one deal)
        self.module: Any = None
        if self.rule_set and not (self.kind == "league" and self.games_target > 0):
            module = engine.rule_set_module(self.rule_set)
            if hasattr(module, "series_over"):
                self.module = module
        self.legs: list[dict] = []  # finished legs: {"winners", "placements", "points", "deals"}
        self.leg_points = [0] * self.players
        self.leg_deals = 0
        self.dealer = None  # who dealt the first deal of the current leg
        # duplicate mode: finished sets, where the current set stands, and sets won per slot
        self.sets: list[dict] = []
        self.rotation = 0
        self.set_first = 0  # the set's first seat (or first dealer when legs are runs of deals)
        self.set_wins = [0] * self.players
        self.set_points = [0] * self.players
        self.set_score = [0] * self.players

    # -- duplicate sets -----------------------------------------------------------------------

    def varies(self) -> bool:
        """Whether the seating changes from game to game outside duplicate mode: a league or a
        match at a table of three or more whose games are single deals (a leg of a rule set's
        own series keeps its seats: its dealer moves round them)."""
        return (not self.duplicate and self.players > 2 and self.module is None
                and self.kind in ("league", "match"))

    def planned_sets(self) -> int:
        """The duplicate sets the seating of sets is balanced for: the league's or match's
        ``games_target`` (a match that goes on past it cycles the same orders), else one."""
        if self.kind in ("league", "match") and self.games_target > 0 and not (
                self.kind == "league" and self.module is not None):
            return self.games_target
        return 1

    def seating(self) -> list[int]:
        """The slot (place in the series' entrant list) sitting in each seat in the next game.

        Slot = seat, except in two cases (tourney.seating; docs/formats.md, "Seating"):

        - a series that :meth:`varies`: game g is seated by row g of a Williams sequence
          (:func:`tourney.seating.williams_sequence`; game 0 slot = seat), so that over the
          series each entrant sits after each other as often as before it and in every seat;
        - duplicate mode: rotation r of set t seats slot ``base[(seat + r) % k]``, ``base`` the
          set's cyclic order from :func:`tourney.seating.duplicate_orders` (balanced for the
          planned number of sets; with two sets: the slots in order, then reversed).
        """
        n = self.players
        if self.varies():
            seq = balanced.williams_sequence(n)
            return list(seq[len(self.games) % len(seq)])
        if not self.duplicate:
            return list(range(n))
        orders = balanced.duplicate_orders(n, self.planned_sets())
        base = orders[len(self.sets) % len(orders)]
        return [base[(seat + self.rotation) % n] for seat in range(n)]

    def _seat_of(self, slot: int) -> int:
        """The seat ``slot`` takes in the next game."""
        return self.seating().index(slot)

    def deal_key(self) -> tuple[int, int]:
        """``(set, deal)`` of the next game in duplicate mode: what its shuffle is seeded by."""
        return len(self.sets), (self.leg_deals if self.module is not None else 0)

    def set_position(self) -> tuple[int, int] | None:
        """``(set, rotation)`` of the next game in duplicate mode, else None."""
        return (len(self.sets), self.rotation) if self.duplicate else None

    def _seat_order(self, values: list) -> list:
        seating = self.seating()
        return [values[seating[seat]] for seat in range(self.players)]

    def _to_slots(self, game: dict) -> dict:
        """A game's seat-indexed lists re-indexed by slot (for the seating it was played in)."""
        seating = self.seating()
        out = dict(game)
        out["winners"] = sorted(seating[s] for s in game["winners"])
        for key in ("points", "placements"):
            values = [0] * self.players
            for seat, value in enumerate(game[key]):
                values[seating[seat]] = value
            out[key] = values
        return out

    def _unit_done(self, winners: list[int], points: list[int]) -> None:
        """One rotation's game (or leg) is over: count it in the set, end the set after k."""
        for s in winners:
            self.set_wins[s] += 1
        for s in range(self.players):
            self.set_points[s] += points[s]
        self.rotation += 1
        if self.rotation < self.players:
            return
        sign = 1 if self._low_wins() else -1
        keys = [(-self.set_wins[s], sign * self.set_points[s]) for s in range(self.players)]
        placements = [1 + sum(1 for o in keys if o < k) for k in keys]
        best = [s for s in range(self.players) if placements[s] == 1]
        winner = best[0] if len(best) == 1 else None
        if winner is not None:
            self.set_score[winner] += 1
        self.sets.append({"winner": winner, "placements": placements,
                          "wins": list(self.set_wins), "points": list(self.set_points)})
        self.rotation = 0
        self.set_wins = [0] * self.players
        self.set_points = [0] * self.players

    # -- the next game ----------------------------------------------------------------------

    def game_options(self) -> dict:
        """The options of the next game (a deal-dependent rule set changes them per deal)."""
        base = dict(self.options or {})
        if self.module is not None and hasattr(self.module, "options_for_deal"):
            return self.module.options_for_deal(base, self.leg_deals + 1)
        return base

    def _draw(self, seats: list[int]) -> int:
        return seats[0] if len(seats) == 1 else seats[self.rng.randrange(len(seats))]

    def _losers(self, last: dict) -> list[int]:
        """Who goes first after ``last`` (a game or a leg): the worst placed, or everyone when
        nobody won."""
        if not last["winners"]:
            return list(range(self.players))
        worst = max(last["placements"])
        return [s for s in range(self.players) if last["placements"][s] == worst]

    def next_first_player(self) -> int:
        """Who plays first in the next game (uses the series RNG only when there is a tie).

        In duplicate mode the first seat (or first dealer) is drawn at the start of each set
        and kept for all its rotations: the deal must not change with the seating."""
        if self.duplicate:
            if self.rotation == 0 and self.leg_deals == 0:
                self.set_first = self._draw(list(range(self.players)))
            if self.module is not None:
                return self.module.first_player_for_deal(self.leg_deals + 1, self.set_first,
                                                         self.players)
            return self.set_first
        if self.module is not None:
            return self._next_first_player_in_leg()
        if not self.games or self.kind == "single":
            return self._draw(list(range(self.players)))
        # points and placements are counted by slot: the chosen slot starts from wherever it sits
        if self.kind == "league":
            top = max(self.points)
            return self._seat_of(self._draw([s for s in range(self.players) if self.points[s] == top]))
        return self._seat_of(self._draw(self._losers(self.games[-1])))

    def _next_first_player_in_leg(self) -> int:
        module, n = self.module, self.players
        if self.leg_deals == 0:  # a new leg: choose its first dealer
            if not self.legs:
                self.dealer = self._draw(list(range(n)))
            else:  # the loser of the previous leg plays first, as after a game of a match
                first = self._draw(self._losers(self.legs[-1]))
                self.dealer = next(d for d in range(n)
                                   if module.first_player_for_deal(1, d, n) == first)
        return module.first_player_for_deal(self.leg_deals + 1, self.dealer, n)

    def leg_index(self) -> int:
        """The 0-based leg the next game belongs to."""
        return len(self.legs) if self.module is not None else len(self.games)

    # -- counting -----------------------------------------------------------------------------

    def needed(self) -> int:
        return self.games_target // 2 + 1

    def _match_over(self, played: int, decided: bool) -> bool:
        assert self.max_games is not None
        if self.play_all and played < self.games_target:
            return False
        return decided or played >= self.max_games

    def over(self) -> bool:
        if self.duplicate:
            if self.rotation or self.leg_deals:  # a set is atomic
                return False
            if self.kind == "match":
                return self._match_over(len(self.sets), max(self.set_score) >= self.needed())
            if self.kind == "league" and self.module is None:
                return len(self.sets) >= self.games_target
            return len(self.sets) >= 1
        if self.kind == "match":
            played = len(self.legs) if self.module is not None else len(self.games)
            return self._match_over(played, max(self.wins) >= self.needed())
        if self.module is not None:
            return len(self.legs) >= 1
        return len(self.games) >= self.games_target

    def _low_wins(self) -> bool:
        """Whether fewer points rank first (all but a leg of the rule set's high scoring)."""
        return not (self.module is not None and (self.options or {}).get("scoring") == "high")

    def _placements(self, totals: list[int]) -> list[int]:
        """Places by totals: lower first, or higher first with the rule set's high scoring."""
        key = list(totals)
        if not self._low_wins():
            key = [-k for k in key]
        return [1 + sum(1 for o in key if o < k) for k in key]

    def add(self, game: dict) -> None:
        """Count a finished game: ``{"winners": [seats], "points": [...], "placements": [...]}``
        (by seat, as played in the seating of :meth:`seating`)."""
        if self.duplicate or self.varies():
            game = self._to_slots(game)
        self.games.append(game)
        if self.module is None:
            for s in game["winners"]:
                self.wins[s] += 1
            for s in range(self.players):
                self.points[s] += game["points"][s]
            if self.duplicate:
                self._unit_done(game["winners"], game["points"])
            return
        scores = list(game["points"])
        if hasattr(self.module, "deal_scores"):
            scores = self.module.deal_scores(
                {"winners": list(game["winners"]), "reason": game.get("reason", ""),
                 "points": list(game["points"]), "placements": list(game["placements"]),
                 "eliminated": [], "detail": ""}, self.options or {})
        for s in range(self.players):
            self.points[s] += scores[s]
            self.leg_points[s] += scores[s]
        self.leg_deals += 1
        if self.kind == "league":  # a league's wins are deals won
            for s in game["winners"]:
                self.wins[s] += 1
        if (self.module.series_over(list(self.leg_points), self.options or {}, self.leg_deals)
                or self.leg_deals >= MAX_DEALS_PER_LEG):
            self._end_leg()

    def _end_leg(self) -> None:
        best = self.module.series_winner(list(self.leg_points), self.options or {})
        winners = best if len(best) == 1 else []  # a shared best total: the leg is drawn
        if self.kind != "league":
            for s in winners:
                self.wins[s] += 1
        self.legs.append({"winners": winners, "placements": self._placements(self.leg_points),
                          "points": list(self.leg_points), "deals": self.leg_deals})
        leg_points = self.leg_points
        self.leg_points = [0] * self.players
        self.leg_deals = 0
        if self.duplicate:
            self._unit_done(winners, leg_points)

    # -- reporting ------------------------------------------------------------------------------

    def info(self) -> dict:
        """The ``series`` object of a bot's game_start message (docs/protocol.md 3.3)."""
        info: dict[str, Any] = {"kind": self.kind, "game": len(self.games) + 1,
                "scores": self._seat_order(self.points), "wins": self._seat_order(self.wins)}
        if self.kind == "single" and self.module is None:
            info["of"] = max(1, self.games_target)  # an SPRT series may hold several
        elif self.kind == "league" and self.games_target:
            info["of"] = self.games_target
        elif self.kind == "match":
            info["best_of"] = self.games_target
        if self.module is not None:
            info.update(leg=len(self.legs) + 1, deal=self.leg_deals + 1,
                        leg_scores=self._seat_order(self.leg_points))
        return info

    def tally(self) -> dict:
        """Where the series stands after the last game added, for progress lines: ``wins``,
        ``points``; with legs also ``leg`` (1-based leg of that game), ``leg_scores`` (that
        leg's totals), ``leg_over`` and ``leg_winners`` (empty while running or when drawn)."""
        t: dict[str, Any] = {"wins": list(self.wins), "points": list(self.points)}
        if self.module is not None:
            ended = self.leg_deals == 0 and bool(self.legs)
            last = self.legs[-1] if ended else None
            t.update(leg=len(self.legs) + (0 if ended else 1),
                     leg_scores=list(last["points"] if last else self.leg_points),
                     leg_over=ended, leg_winners=list(last["winners"]) if last else [])
        return t

    def result(self) -> dict:
        """``{"outcome": "win"|"draw", "winner": seat|None, "games_played", "legs_played",
        "sets_played", "seats": [{"seat", "wins", "points", "placement"}]}`` (in duplicate mode
        ``seat`` and ``winner`` are slots, and a match or single game is decided by sets)."""
        n = self.players
        winner = None
        if self.duplicate and self.kind == "match":
            reached = [s for s in range(n) if self.set_score[s] >= self.needed()]
            winner = reached[0] if reached else None
            placements = [1 + sum(1 for o in self.set_score if o > w) for w in self.set_score]
            if winner is None:
                placements = [1] * n
        elif self.duplicate and self.kind == "single":
            last_set = self.sets[-1] if self.sets else None
            winner = last_set["winner"] if last_set else None
            placements = list(last_set["placements"]) if last_set else [1] * n
        elif self.kind == "league" or (self.kind == "single" and self.module is None
                                       and len(self.games) > 1):
            # several single games of the same bots (an SPRT series): decided as a league of them
            placements = self._placements(self.points)
            best = [s for s in range(n) if placements[s] == 1]
            winner = best[0] if len(best) == 1 else None
        elif self.kind == "match":
            reached = [s for s in range(n) if self.wins[s] >= self.needed()]
            winner = reached[0] if reached else None
            placements = [1 + sum(1 for o in self.wins if o > w) for w in self.wins]
            if winner is None:
                placements = [1] * n  # a drawn match: shared first place
        else:  # single: the one game, or the one leg
            units = self.legs if self.module is not None else self.games
            last = units[-1] if units else None
            w = last["winners"] if last else []
            winner = w[0] if len(w) == 1 else None
            placements = list(last["placements"]) if last else [1] * n
        return {
            "outcome": "win" if winner is not None else "draw",
            "winner": winner,
            "games_played": len(self.games),
            "legs_played": len(self.legs) if self.module is not None else len(self.games),
            "sets_played": len(self.sets),
            "seats": [
                {"seat": s, "wins": self.wins[s], "points": self.points[s],
                 "placement": placements[s]}
                for s in range(n)
            ],
        }

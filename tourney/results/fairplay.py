"""Collusion detection for events at tables of three or more: ``tourney fairplay EVENT``.

Two entrants that share a table can help each other without any channel the sandbox can close:
they can spare each other (soft play) and pass each other cards or results (feeding). Online card
rooms catch this after the fact, from the hand histories (docs/evaluation.md, "Collusion
detection"); this module does the same from the stored games.

What the database does not hold (who could have been aimed at, with how many cards in hand) is
recovered by replaying each stored game from its seed and choices (:func:`observe` over
:func:`tourney.results.store.replay_steps`). For every pair of entrants that shared a table, three
signals are tested, each as a stratified 2×2 test (:mod:`tourney.stats.collusion`):

``soft_play``
    A *hostile* choice picks one opponent to suffer an effect: draw cards, skip a turn, have the
    hand looked at, take cards into the hand (:data:`HOSTILE`), or lose a card in play, destroyed
    or taken (:data:`TAKING`; the card's controller is the one aimed at). Each time one of the pair
    made such a choice and the other was among the opponents it could pick, the partner is one
    unit and every other opponent it could pick is another; such choices alternate between giving
    their partner unit and giving their other units (one choice hits at most one of them, so
    taking both from one choice would tie the strata together and make the test too ready to
    reject). Units are stratified by the acting entrant, the card and the target's standing: how
    many opponents to choose from, how many of them hold fewer cards and how many as many, how
    many of those come before it in the offered order, its place in that order, its seat
    relative to the actor (the next seat, the one after, ...) and, after the first game of a
    series, how many have a better and an equal series score. An honest entrant aims by what it
    sees (hand sizes, seats, scores, or at random), never by who the opponent is, so within a
    stratum the partner is hit as often as anyone. The relative seat is what makes "always the
    next player" no evidence; it can only tell where the seating varies (:mod:`tourney.seating`):
    where two entrants always sit the same distance apart, as in the fixed orders of old, their
    strata cannot tell and nothing is flagged. One-sided: the partner is hit *less* often. Mirror Universe is not tested
    (:data:`UNTESTED`).
``trades``
    Trade (look at a hand, exchange a card) is the one effect that passes a card from one hand to
    a chosen other. Same units and strata, one-sided the other way: the partner is picked *more*
    often than the position explains (feeding cards).
``placements``
    Each game of either entrant gives one head-to-head unit: that entrant against the entrant
    seated directly after it, unless that is the partner (ties dropped). The seat relation is the
    same in every unit, so the partner's presence cannot change it. Strata: the entrant, that
    opponent and the table size; the two rows are games with and without the partner at the table.
    One-sided: the entrant beats the same opponent *more* often when the partner sits in
    (feeding results). **Reported, never flagging**: the two rows differ by the partner's identity,
    so an honest partner whose style differs from the other entrants' (a random bot among greedy
    ones) changes the head-to-head for honest reasons, and no stratum can remove that. On 16 honest
    events of 2,000 games the test rejected 10 of 80 pairs with the random bot at a nominal 5%.

The choice tests (``soft_play``, ``trades``) of every pair are one family, adjusted with Holm's
method, and a pair is flagged when one of its adjusted p-values is below alpha. Placement tests are
adjusted with Holm among themselves and reported beside them. They run second: a pair flagged for
its choices changes every other entrant's results where it sits together, so those games give no
placement unit to any other pair.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from sqlite_utils import Database
from tabulate import tabulate

from tourney.errors import UserError
from tourney.results import store
from tourney.results.standings import find_event
from tourney.stats.collusion import Table, holm, stratified_test

#: effects whose chooser picks a player to suffer them (soft play is not picking the partner): draw
#: cards, skip a turn, have a hand looked at, or take cards from play into the hand (Tempest,
#: Hurricane: in a shedding game a card more in hand is a step back)
HOSTILE = frozenset({
    "Angel of Hope", "Pleasant Memories", "Worldly Wisdom", "Forbidden Knowledge", "Visionary Dream",
    "Sleep", "Queen Guinevere", "Tempest", "Hurricane",
})
#: effects whose chooser picks a card in play, its controller losing it: destroyed (the engine's
#: "destroy" decisions: Devious Dragon, Death, Allosaurus) or taken (Bewitch); the target is the
#: card's controller
TAKING = frozenset({"Bewitch"})
#: effects that pass a card between the chooser's hand and the chosen player's (feeding)
PASSING = frozenset({"Trade"})
#: effects that choose a player but are not tested, and why: swapping every card in play helps
#: or hurts the chosen player depending on both tables, so neither tail is collusion
UNTESTED = {"Mirror Universe": "swapping all cards in play can help or hurt the chosen player"}
#: p-values below this are printed (and written in JSON) as ``< 1e-16``: double precision cannot
#: tell them apart from each other, nor their complements from 1
P_FLOOR = 1e-16

#: signal -> (what the units are, which tail is collusion)
SIGNALS = {
    "soft_play": ("hostile effects aimed at the partner, against other opponents in the same standing", "less"),
    "trades": ("trades made with the partner, against other opponents in the same standing", "greater"),
    "placements": ("head-to-head wins against the same opponent, with the partner at the table and without",
                   "greater"),
}
DEFAULT_ALPHA = 0.05
#: the signals about the pair's own choices: the only ones that flag a pair
CHOICES = ("soft_play", "trades")
#: signals about results, reported with their own Holm adjustment but never flagging a pair (the
#: partner's honest style changes the other entrants' results too; docs/evaluation.md)
REPORTED = ("placements",)


@dataclass(frozen=True)
class Aim:
    """One choice of an opponent: ``actor`` (seat) picked ``chosen`` (a seat, or None: itself,
    a teammate or no one) among ``candidates`` (opponents still in, each with its hand size), at
    a table of ``players`` seats (0: unknown); ``scores`` holds each candidate's series points
    before the game (lower is better; empty when the series has no earlier game)."""

    actor: int
    channel: str  # "hostile" (its card's effect, or the card taken) or "trade"
    source: str
    candidates: tuple[tuple[int, int], ...]  # (seat, cards in hand), in the order offered
    chosen: int | None
    players: int = 0
    scores: tuple[int, ...] = ()

    def standing(self, seat: int) -> tuple:
        """The stratum of ``seat`` as a target: the card, how many could be picked, how many of
        the others hold fewer cards, how many as many, how many of those come before it in the
        offered order (the turn order, which a bot may use to break a tie), its place in that
        order and its seat relative to the actor (1: the next seat; an honest bot may aim by
        position), and how many of the others have a better and an equal series score (an honest
        bot may aim at the leader)."""
        size = dict(self.candidates)[seat]
        fewer = sum(1 for q, n in self.candidates if n < size)
        tied = sum(1 for q, n in self.candidates if n == size and q != seat)
        ahead = place = 0
        for q, n in self.candidates:
            if q == seat:
                break
            ahead += n == size
            place += 1
        relative = (seat - self.actor) % self.players if self.players else 0
        by_score: tuple = ()
        if self.scores:
            mine = self.scores[[q for q, _ in self.candidates].index(seat)]
            by_score = (sum(1 for v in self.scores if v < mine), self.scores.count(mine) - 1)
        return (self.source, len(self.candidates), fewer, tied, ahead, place, relative, *by_score)


@dataclass
class GameFacts:
    """What the fair-play tests need of one game: the entrant in each seat, the placements
    (1 best) and every aimed choice."""

    names: tuple[str, ...]
    placements: tuple[int, ...]
    aims: list[Aim] = field(default_factory=list)
    teams: list[list[int]] | None = None

    def seat_of(self, name: str) -> int | None:
        return self.names.index(name) if name in self.names else None


def _friends(teams: list[list[int]] | None, seat: int) -> set[int]:
    for team in teams or []:
        if seat in team:
            return set(team)
    return {seat}


def _controller(game, cid: int) -> int | None:
    for q, cards in enumerate(game.in_play):
        if cid in cards:
            return q
    return None


def observe(steps: Iterable[tuple[object, str | None]], teams: list[list[int]] | None = None,
            scores: Sequence[int] | None = None) -> list[Aim]:
    """The aimed choices of one game, from its steps: pairs ``(game, choice)`` as
    :func:`tourney.results.store.replay_steps` yields them (the game just before ``choice`` is
    applied), or as a referee plays them. ``scores``: each seat's series points before the game
    (when the series had earlier games), which a bot may aim by.

    Covered: every choice of a player by a :data:`HOSTILE` or :data:`PASSING` effect (kinds
    "player" and "players"), and every choice of an opponent's card in play to destroy (kind
    "destroy") or to take (:data:`TAKING`), its controller being the one aimed at. Not covered:
    :data:`UNTESTED`, and choices with fewer than two opponents to pick from."""
    aims = []
    for game, choice in steps:
        decision = game.pending  # type: ignore[attr-defined]
        if choice is None or decision is None or choice.startswith("forfeit:"):
            continue
        source = decision.source
        actor = decision.player
        friends = _friends(teams, actor)
        alive, hands = game.alive, game.hands  # type: ignore[attr-defined]
        if decision.kind in ("player", "players"):
            channel = "hostile" if source in HOSTILE else "trade" if source in PASSING else None
            seats = [int(o[7:]) for o in decision.options if o.startswith("player:")]
            chosen = int(choice[7:]) if choice.startswith("player:") else None
        elif decision.kind == "destroy" or source in TAKING:
            channel = "hostile"
            owners = [_controller(game, int(o[5:])) for o in decision.options if o.startswith("card:")]
            seats = list(dict.fromkeys(q for q in owners if q is not None))
            chosen = _controller(game, int(choice[5:])) if choice.startswith("card:") else None
        else:
            continue
        if channel is None:
            continue
        candidates = tuple((q, len(hands[q])) for q in seats if q not in friends and alive[q])
        if len(candidates) < 2:
            continue  # no choice between opponents: nothing to compare
        players = len(alive)
        series = tuple(scores[q] for q, _ in candidates) if scores else ()
        aims.append(Aim(actor, channel, source, candidates, chosen if chosen not in friends else None,
                        players, series))
    return aims


# ------------------------------------------------------------------------------ the tests


def pair_tables(games: Iterable[GameFacts], first: str, second: str,
                suspects: Iterable[tuple[str, str]] = ()) -> dict[str, list[Table]]:
    """The strata of each signal for the pair (see the module docstring), as 2×2 tables.
    ``suspects`` are pairs already flagged for their choices: games in which such a pair sat
    together give no placement unit to another pair (its help to each other changes everyone's
    results there)."""
    cells: dict[str, dict[tuple, list[int]]] = {s: defaultdict(lambda: [0, 0, 0, 0]) for s in SIGNALS}
    turns = dict.fromkeys(CHOICES, 0)
    pair = (first, second)
    others = [set(s) for s in suspects if set(s) != set(pair)]
    for g in games:
        seats = {name: g.seat_of(name) for name in pair}
        tainted = any(s <= set(g.names) for s in others)
        for me, partner in ((first, second), (second, first)):
            s = seats[me]
            if s is None:
                continue
            p = seats[partner]
            if not tainted:
                _placement_unit(cells["placements"], g, me, s, p)
            if p is None:
                continue
            for aim in g.aims:
                if aim.actor != s or all(q != p for q, _ in aim.candidates):
                    continue
                signal = "soft_play" if aim.channel == "hostile" else "trades"
                # One choice hits one candidate at most, so its units are not independent: a
                # choice gives either its partner unit or its other units, in turn, never both.
                partner_turn = turns[signal] % 2 == 0
                turns[signal] += 1
                for q, _ in aim.candidates:
                    if (q == p) != partner_turn:
                        continue
                    cell = cells[signal][(me, *aim.standing(q))]
                    row = 0 if q == p else 2
                    cell[row + (0 if aim.chosen == q else 1)] += 1
    return {s: [tuple(c) for c in cells[s].values()] for s in SIGNALS}  # type: ignore[misc]


def _placement_unit(cells: dict, g: GameFacts, me: str, s: int, p: int | None) -> None:
    n = len(g.names)
    z = (s + 1) % n  # always the next seat: the partner's presence must not move the opponent
    if z == p or g.placements[s] == g.placements[z]:
        return
    cell = cells[(me, g.names[z], n)]
    row = 0 if p is not None else 2
    cell[row + (0 if g.placements[s] < g.placements[z] else 1)] += 1


def analyse(games: list[GameFacts], alpha: float = DEFAULT_ALPHA) -> dict:
    """Every pair of entrants that shared a table, each signal with its one-sided p-value and
    its Holm-adjusted one (choice tests in one family, placement tests in another); pairs flagged
    by their choice tests only, sorted by their smallest adjusted choice p-value. Teammates (a team
    event's partners) are not tested: they are meant to help each other."""
    if not 0 < alpha < 1:
        raise UserError(f"alpha must be between 0 and 1, not {alpha}")
    together: dict[tuple[str, ...], int] = defaultdict(int)
    teammates: set[tuple[str, ...]] = set()
    played: dict[str, int] = defaultdict(int)
    for g in games:
        for name in g.names:
            played[name] += 1
        if len(g.names) < 3:
            continue  # at a table of two there is no third player to spare or to feed against
        for a, b in combinations(range(len(g.names)), 2):
            key = tuple(sorted((g.names[a], g.names[b])))
            together[key] += 1
            if b in _friends(g.teams, a):
                teammates.add(key)
    pairs: list[dict[str, Any]] = []
    keys = sorted(k for k in together if k not in teammates)
    for first, second in keys:
        tables = pair_tables(games, first, second)
        signals: dict[str, dict[str, Any]] = {}
        for signal, (_, tail) in SIGNALS.items():
            if signal in CHOICES:
                signals[signal] = stratified_test(tables[signal], tail).to_dict()
        pairs.append({"entrants": [first, second], "games_together": together[(first, second)],
                      "games_apart": played[first] + played[second] - 2 * together[(first, second)],
                      "signals": signals})
    # Stage one: pairs whose own choices are flagged (Holm over the choice tests alone). Their
    # games together are left out of every other pair's placement test, which would otherwise
    # credit an honest pair with doing better wherever the suspects were absent.
    chosen = [(pair, s) for pair in pairs for s, r in pair["signals"].items() if r["method"] != "none"]
    suspects = {tuple(pair["entrants"]) for (pair, s), p in
                zip(chosen, holm([pair["signals"][s]["p_value"] for pair, s in chosen])) if p < alpha}
    for pair in pairs:
        first, second = pair["entrants"]
        tables = pair_tables(games, first, second, suspects)
        signals = {}
        for signal, (_, tail) in SIGNALS.items():
            signals[signal] = pair["signals"].get(signal) or stratified_test(tables[signal], tail).to_dict()
        pair["signals"] = signals
    for family in (CHOICES, REPORTED):
        tested = [(pair, s) for pair in pairs for s in family if pair["signals"][s]["method"] != "none"]
        for (pair, s), adjusted in zip(tested, holm([pair["signals"][s]["p_value"] for pair, s in tested])):
            pair["signals"][s]["p_adjusted"] = adjusted
    for pair in pairs:
        for r in pair["signals"].values():
            r.setdefault("p_adjusted", None)
        known = [pair["signals"][s]["p_adjusted"] for s in CHOICES if pair["signals"][s]["p_adjusted"] is not None]
        pair["p_min"] = min(known) if known else None
        pair["flagged"] = [s for s in CHOICES
                           if pair["signals"][s]["p_adjusted"] is not None and pair["signals"][s]["p_adjusted"] < alpha]
    pairs.sort(key=lambda p: (1.0 if p["p_min"] is None else p["p_min"], p["entrants"]))
    tests = sum(pair["signals"][s]["method"] != "none" for pair in pairs for s in CHOICES)
    for pair in pairs:  # the p-values as printed: below P_FLOOR they read "< 1e-16"
        pair["p_min"] = printable(pair["p_min"])
        for r in pair["signals"].values():
            r["p_value"], r["p_adjusted"] = printable(r["p_value"]), printable(r["p_adjusted"])
    out = {"games": len(games), "alpha": alpha, "correction": "holm", "tests": tests,
           "pairs": pairs, "flagged": [p["entrants"] for p in pairs if p["flagged"]]}
    if not together:
        out["notice"] = NO_TABLES
    return out


#: what an event without a table of three or more gets instead of pairs
NO_TABLES = ("no game of this event seated three or more players: the checks compare how a player treats "
             "its partner with how it treats the others at the table, so there is nothing to test")
#: how a p-value below :data:`P_FLOOR` is printed, in text and in JSON alike
BELOW_FLOOR = "< 1e-16"


def printable(p: float | str | None) -> float | str | None:
    """``p`` as shown: :data:`BELOW_FLOOR` below :data:`P_FLOOR` (0 included), else itself."""
    return BELOW_FLOOR if isinstance(p, float | int) and p < P_FLOOR else p


def p_text(p: float | str) -> str:
    """A p-value in two significant figures, or :data:`BELOW_FLOOR`."""
    return p if isinstance(p, str) else f"{p:.2g}"


# ------------------------------------------------------------------------------ from the database


def event_games(db: Database, event_id: int) -> Iterator[GameFacts]:
    """Every stored game of an event as :class:`GameFacts`, replayed for its aimed choices (with
    each seat's series points before the game, once its series has had a game)."""
    seats: dict[int, list[tuple[str, int, int]]] = defaultdict(list)
    series_of: dict[int, int] = {}
    for r in db.query("select st.game_id, g.series_id, e.name, st.placement, st.points from seats st "
                      "join entrants e on e.id = st.entrant_id join games g on g.id = st.game_id "
                      "where g.event_id = ? order by g.series_id, g.idx, st.seat", [event_id]):
        place = r["placement"] if r["placement"] is not None else r["points"] or 0
        seats[r["game_id"]].append((r["name"], place, r["points"] or 0))
        series_of[r["game_id"]] = r["series_id"]
    totals: dict[int, dict[str, int]] = defaultdict(dict)  # series -> entrant -> points so far
    for game_id, rows in seats.items():
        names = tuple(n for n, _, _ in rows)
        placements = tuple(p for _, p, _ in rows)
        so_far = totals[series_of[game_id]]
        scores = [so_far[n] for n in names] if so_far else None
        for n, _, points in rows:
            so_far[n] = so_far.get(n, 0) + points
        if len(rows) < 3:
            yield GameFacts(names, placements)
            continue
        replay = store.load_replay(db, game_id)
        teams = json.loads(replay["teams"]) if replay and replay["teams"] else None
        aims = observe(store.replay_steps(replay), teams, scores) if replay else []
        yield GameFacts(names, placements, aims, teams)


def event_fairplay(db: Database, name: str | None = None, alpha: float = DEFAULT_ALPHA) -> dict:
    """The fair-play document of the event ``name`` (default: the latest event run from a
    config, as ``tourney standings`` picks it)."""
    event = find_event(db, name)
    data = analyse(list(event_games(db, event["id"])), alpha)
    return {"version": 1, "kind": "fairplay", "event": event["name"], "rule_set": event["rule_set"],
            "players": event["players"], **data}


def summary_lines(data: dict, limit: int = 5) -> list[str]:
    """The fair-play verdict in a few lines of words (the report's section and the command's
    table footer)."""
    if not data["pairs"]:
        return [f"Fair play: {data.get('notice') or 'no pair of entrants to test'}."]
    flagged = data["flagged"]
    head = (f"Fair play: {len(data['pairs'])} pairs, {data['tests']} choice tests, Holm-adjusted at alpha "
            f"{data['alpha']:g}: ")
    if not flagged:
        return [head + "no pair flagged."]
    lines = [head + f"{len(flagged)} pair(s) flagged."]
    for pair in data["pairs"][:limit]:
        if pair["flagged"]:
            what = ", ".join(f"{s} p={p_text(pair['signals'][s]['p_adjusted'])}" for s in pair["flagged"])
            lines.append(f"  {pair['entrants'][0]} + {pair['entrants'][1]}: {what}")
    return lines


def _p(result: dict) -> str:
    if result["p_adjusted"] is None:
        return "-"
    return f"{p_text(result['p_adjusted'])} ({result['observed']} vs {result['expected']:.1f})"


def render_table(data: dict) -> str:
    """The fair-play document as a text table: one row per pair, most suspicious first."""
    headers = ["pair", "games together", "soft play: adjusted p (hits vs expected)",
               "trades: adjusted p (trades vs expected)", "placements: adjusted p (wins vs expected)",
               "flagged"]
    if not data["pairs"]:
        return f"Fair play: {data['event']}: {data.get('notice') or 'no pair of entrants to test'}.\n"
    rows = [[" + ".join(p["entrants"]), p["games_together"], _p(p["signals"]["soft_play"]),
             _p(p["signals"]["trades"]), _p(p["signals"]["placements"]), ", ".join(p["flagged"]) or "no"]
            for p in data["pairs"]]
    title = (f"Fair play: {data['event']} ({data['games']} games; lower p is more suspicious; "
             f"one-sided p-values, Holm-adjusted over {data['tests']} choice tests; placements are "
             f"adjusted among themselves and never flag a pair)\n")
    table = tabulate(rows, headers=headers, disable_numparse=True)
    return title + table + "\n\n" + "\n".join(summary_lines(data)) + "\n"


#: the report replays at most this many games for its fair-play section (about 15 s of CPU);
#: a larger event's report says to run ``tourney fairplay`` instead
REPORT_GAME_LIMIT = 5000


def report_section(db: Database, name: str) -> dict | None:
    """The fair-play part of ``tourney report`` for an event at tables of three or more (None for
    tables of two, where there is no third party to spare or to feed against). An event of more
    than :data:`REPORT_GAME_LIMIT` games gets ``{"kind": "fairplay", "skipped": reason}``."""
    event = find_event(db, name)
    if (event["players"] or 2) < 3:
        return None
    games = db.execute("select count(*) from games where event_id = ?", [event["id"]]).fetchone()[0]
    if games > REPORT_GAME_LIMIT:
        return {"kind": "fairplay", "event": event["name"],
                "skipped": f"{games} games: more than the report replays ({REPORT_GAME_LIMIT}); "
                           f"run tourney fairplay {event['name']}"}
    return event_fairplay(db, name)


def report_lines(data: dict) -> list[str]:
    """The report's fair-play lines, when the report holds a fair-play section."""
    section = data.get("fairplay")
    if not section:
        return []
    if "skipped" in section:
        return [f"Fair play: not checked here ({section['skipped']})."]
    return summary_lines(section) + [f"  (each pair's tests: tourney fairplay {section['event']})"]

"""Built-in bots that run in process.

A bot has ``start(card_table)``, called once per game with ``game.card_table()`` (the deck's
composition is public; views name cards by id), and ``choose(decision, view) -> option_id``,
where ``view`` is a function returning ``game.view(decision.player)``: bots see only what their
player may see, and a bot that does not need the view (random) never pays for building it.
"""

from __future__ import annotations

import random

from engine.cards import HOSTILE
from engine.search import search

BOT_NAMES = ("random", "greedy", "mcts")


class RandomBot:
    """Uniform over the legal options, from its own seeded RNG."""

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def start(self, card_table: dict) -> None:
        pass

    def choose(self, decision, view) -> str:
        return self.rng.choice(decision.options)


class GreedyBot:
    """Empties its hand as fast as it can and points hostile effects at the leading opponent.

    Main phase: discard first (the card whose colour it holds most of, keeping eights for when
    nothing else fits), then play a card (an event before an asset, never a card that would
    overload its own table under Thin Ice), then end the turn.
    """

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)
        self.cards: dict[int, dict] = {}

    def start(self, card_table: dict) -> None:
        self.cards = {int(k): v for k, v in card_table.items()}

    def choose(self, decision, view) -> str:
        options = decision.options
        if len(options) == 1:
            return options[0]
        handler = getattr(self, "_" + decision.kind, None)
        if handler is None:
            return options[0]
        return handler(decision, view())

    def _info(self, cid) -> dict:
        return self.cards.get(int(cid), {})

    def _main(self, decision, view):
        options = decision.options
        hand = view["hand"]
        discards = [o for o in options if o.startswith("discard:")]
        if discards:
            return max(discards, key=lambda o: self._discard_value(view, int(o[8:]), hand))
        plays = [o for o in options if o.startswith("play:")]
        if plays:
            return max(plays, key=lambda o: self._play_value(view, int(o[5:])))
        if "play_top" in options:
            return "play_top"
        return "end"

    def _discard_value(self, view, cid, hand):
        info = self._info(cid)
        suits = set(info.get("suits", ()))
        same_colour = sum(1 for c in hand if set(self._info(c).get("suits", ())) & suits)
        is_eight = info.get("rank") == "8"
        return (not is_eight, same_colour)

    def _play_value(self, view, cid):
        info = self._info(cid)
        me = view["player"]
        mine = len(view.get("in_play", [[]] * (me + 1))[me])
        if info.get("name") == "Thin Ice" or info.get("type") == "asset" and mine >= 3:
            return (0, 0)
        sizes = view["hand_sizes"]
        if info.get("name") == "Revolution" and sizes[me] - 1 <= min(sizes):
            return (0, 1)  # sharing out the hands only helps a player holding more than the others
        if info.get("name") == "Armageddon" and mine > sum(map(len, view["in_play"])) - mine:
            return (0, 1)
        return (1, info.get("type") == "event")

    def _player(self, decision, view):
        me = view["player"]
        players = [int(o[7:]) for o in decision.options]
        teams = view.get("teams")
        friends = {me}
        if teams:
            friends = set(next(t for t in teams if me in t))
        if decision.source in HOSTILE:
            foes = [p for p in players if p not in friends] or players
            return f"player:{min(foes, key=lambda p: view['hand_sizes'][p])}"
        return f"player:{me}" if me in players else decision.options[0]

    def _players(self, decision, view):
        """"Up to two players" draw: pick opponents (fewest cards first), then stop."""
        me = view["player"]
        teams = view.get("teams")
        friends = set(next(t for t in teams if me in t)) if teams else {me}
        foes = [int(o[7:]) for o in decision.options if o.startswith("player:") and int(o[7:]) not in friends]
        if foes:
            return f"player:{min(foes, key=lambda p: view['hand_sizes'][p])}"
        return "done" if "done" in decision.options else decision.options[0]

    def _put_back(self, decision, view):
        """Put back the cards least likely to be discarded soon: eights are kept."""
        cards = [o for o in decision.options if o.startswith("card:")]
        if not cards:
            return decision.options[0]
        return min(cards, key=lambda o: self._discard_value(view, int(o[5:]), view["hand"]))

    def _trade_take(self, decision, view):
        cards = [o for o in decision.options if o.startswith("card:")]
        return max(cards, key=lambda o: self._info(int(o[5:])).get("rank") == "8")

    def _trade_give(self, decision, view):
        return self._put_back(decision, view)

    def _yes_no(self, decision, view):
        return "yes" if "yes" in decision.options else decision.options[0]

    def _destroy(self, decision, view):
        me = view["player"]
        mine = set(view["in_play"][me])
        theirs = [o for o in decision.options if o.startswith("card:") and int(o[5:]) not in mine]
        return theirs[0] if theirs else decision.options[-1]

    def _save(self, decision, view):
        mine = set(view["in_play"][view["player"]])
        own = [o for o in decision.options if o.startswith("card:") and int(o[5:]) in mine]
        return own[0] if own else "done"

    # -- the eights family (crazy-eights, super-crazy-eights) ------------------------------------

    def _turn(self, decision, view):
        """Play rather than draw; keep eights (wild) for last and shed the costliest card first."""
        plays = [o for o in decision.options if o.startswith("play:")]
        if plays:
            return max(plays, key=lambda o: self._shed_value(int(o[5:])))
        return "draw" if "draw" in decision.options else decision.options[0]

    def _shed_value(self, cid):
        rank = self._info(cid).get("rank", "")
        if rank == "8":
            return (0, 0)
        return (1, 10 if rank in ("J", "Q", "K") else 1 if rank == "A" else int(rank or 0))

    def _suit(self, decision, view):
        """Name the suit held most (eights do not count: they follow any suit)."""
        counts: dict[str, int] = {}
        for c in view["hand"]:
            info = self._info(c)
            if info.get("rank") != "8":
                for s in info.get("suits", ()):
                    counts[s] = counts.get(s, 0) + 1
        return max(decision.options, key=lambda o: counts.get(o[5:], 0))

    def _colour(self, decision, view):
        counts: dict[str, int] = {}
        for c in view["hand"]:
            for s in self._info(c).get("suits", ()):
                counts[s] = counts.get(s, 0) + 1
        return max(decision.options, key=lambda o: counts.get(o[7:], 0))


class MctsBot:
    """Determinised Monte-Carlo search (:mod:`engine.search`) over worlds sampled from its seat's
    information (:mod:`engine.sampling`): ``iterations`` rollouts per decision, deterministic from
    the seed; ``budget_ms``, when given, caps a decision's time (and then the choice depends on
    the machine's speed). docs/bots.md has its strength and cost.

    It needs the game to copy worlds from: a caller that has one calls :meth:`choose_in` (the
    built-in entrant does; the game is read only through the sampler, which reads only the seat's
    information); :meth:`choose` without one plays as greedy.
    """

    #: rollouts per decision by default: about 50 ms a decision of Crazier Eights for two on one
    #: core (95th centile about 95 ms; docs/bots.md)
    ITERATIONS = 200

    def __init__(self, seed: int = 0, iterations: int | None = None, budget_ms: float | None = None):
        self.rng = random.Random(seed)
        self.iterations = self.ITERATIONS if iterations is None else iterations
        self.budget_ms = budget_ms
        self.greedy = GreedyBot(seed)

    def start(self, card_table: dict) -> None:
        self.greedy.start(card_table)

    def choose(self, decision, view) -> str:
        return self.greedy.choose(decision, view)

    def choose_in(self, game, seat: int) -> str:
        """The option to answer ``game``'s pending decision (``seat``'s) with."""
        return search(game, seat, self.rng, self.iterations, self.budget_ms)


def make_bot(name: str, seed: int = 0, **settings):
    """A built-in bot by name (see ``BOT_NAMES``); ``settings`` are the bot's own (the mcts bot's
    ``iterations`` and ``budget_ms``)."""
    if name == "mcts":
        return MctsBot(seed, **settings)
    if settings:
        raise ValueError(f"the built-in bot {name!r} takes no settings (given: {', '.join(settings)})")
    if name == "random":
        return RandomBot(seed)
    if name == "greedy":
        return GreedyBot(seed)
    raise ValueError(f"unknown built-in bot {name!r} (known: {', '.join(BOT_NAMES)})")

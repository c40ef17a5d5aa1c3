"""Crazier Eights: the game. The contract (pending, apply, forfeit, view, labels), the machine that
runs frames until a player is asked something, the turn order, and how a game is won and lost."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from engine.cards import SUITS
from engine.common import (
    CAPPED,
    DECISION_CAP,
    Decision,
    IllegalOption,
    Result,
    placements_from_scores,
    record_forfeit,
)
from engine.crazier.options import RULE_SET
from engine.crazier.table import Table

#: the step function of each kind of frame. engine.crazier.steps fills it when the package loads:
#: the steps are written against Game, so they import this module and not the other way round
STEPS: dict[str, Callable[[Game, dict], Decision | None]] = {}

#: label texts of the option verbs (see ``Game.label``)
_CARD_VERBS = {"play": "play ", "discard": "discard ", "card": ""}
_WORDS = {
    "end": "end the turn",
    "done": "done",
    "yes": "yes",
    "no": "no",
    "play_top": "play the top card of the draw pile",
    "top": "leave it on top",
    "bottom": "put it on the bottom",
}


class Game(Table):
    """One game of Crazier Eights. See the module docstring and docs/engine.md."""

    __slots__ = ("pending", "_labels")  # see engine.crazier.state._Setup
    rule_set = RULE_SET

    def __init__(self, players, seed, options, deck, team, rng):
        super().__init__(players, seed, options, deck, team, rng)
        #: the decision asked now, None once the game is over (a plain attribute: read at every step)
        self.pending: Decision | None = None
        self._labels: dict[str, str] = {}  # option id -> label, see label()

    # ----------------------------------------------------------------- the contract
    def apply(self, option_id: str) -> None:
        """Answer the pending decision with one of its option ids."""
        decision = self.pending
        if decision is None:
            raise IllegalOption("the game is over: no decision is pending")
        if option_id not in decision.options:
            raise IllegalOption(
                f"{option_id!r} is not an option of this {decision.kind} decision of player "
                f"{decision.player} (options: {', '.join(decision.options)})"
            )
        self.choices.append(option_id)
        self.seen[decision.player] = len(self.events)
        self.stack[-1]["answer"] = option_id
        self._advance()
        if self.pending is not None and len(self.choices) >= DECISION_CAP:
            self._fewest_cards_win(CAPPED)  # P18: the closest ending the rules give

    def forfeit(self, player: int, reason: str) -> None:
        """``player`` loses the game under the rules (a bot's fault); the game goes on.
        Recorded in ``choices`` (see :func:`engine.common.record_forfeit`)."""
        if not record_forfeit(self, player, reason):
            return
        self._log({"type": "forfeit", "player": player, "reason": reason})
        self._lose([player], f"forfeit:{reason}")
        if self.result is None:
            self._advance()
        else:
            self.pending = None

    def label(self, option_id: str) -> str:
        """A readable text for an option id (a pure function of the id in a given game, so it is
        kept: the referee labels every option of every request)."""
        text = self._labels.get(option_id)
        if text is None:
            text = self._labels[option_id] = self._make_label(option_id)
        return text

    def _make_label(self, option_id: str) -> str:
        verb, _, value = option_id.partition(":")
        if verb in ("play", "discard", "card"):
            return _CARD_VERBS[verb] + self.card_text(int(value))
        if verb == "colour":
            return f"name {self.options['suit_colour_names'][value]} ({value})"
        if verb == "player":
            return f"player {value}"
        return _WORDS.get(verb, option_id)

    def card_text(self, cid: int) -> str:
        text = self._texts.get(cid)
        if text is None:
            d = self.defs[cid]
            suits = "/".join(sorted(d.suits, key=SUITS.index))
            text = self._texts[cid] = f"{d.name} ({d.rank or '-'} {suits})"
        return text

    def hand_players(self) -> list[int]:
        """The seat holding each hand: here every seat holds one."""
        return list(range(self.players))

    def card_table(self) -> dict[int, dict]:
        return {cid: d.to_dict() for cid, d in enumerate(self.defs)}

    def view(self, player: int) -> dict:
        """What ``player`` may know now, as JSON-ready data (docs/positions.md describes it)."""
        active = self.turn
        events = [e for e in self.events[self.seen[player]:] if e.get("only", player) == player]
        known = {}
        if self.known[player]:
            positions = {c: i for i, c in enumerate(reversed(self.draw_pile))}
            known = {str(c): positions[c] for c in self.known[player] if c in positions}
        look = self.current_look(player)
        view = {
            "rule_set": RULE_SET,
            "player": player,
            "players": self.players,
            "active": active,
            "turn": self.turn_number,
            "phase": self.phase,
            "alive": list(self.alive),
            "teams": self._teams_list(),
            "hand": list(self.hands[player]),
            "hand_sizes": [len(h) for h in self.hands],
            "draw_pile": len(self.draw_pile),
            "discard_pile": list(self.discard),
            "top": self.discard[-1] if self.discard else None,
            "named_colour": self.named_colour(),
            "in_play": [list(cards) for cards in self.in_play],
            "limbo": list(self.limbo),
            "this_turn": {
                "played": self.played,
                "discards_made": self.discards_made,
                "discards_allowed": self.discard_allowance(active),
            },
            "skips": list(self.skips),
            "extra_turns": list(self.extra),
            "known_draw_pile": known,
            "events": events,
        }
        if look:
            view["looking_at"] = look
        return view

    def describe(self, e: dict) -> str:
        t = e["type"]
        p = e.get("player")
        name = self.card_text
        if t == "turn":
            return f"-- turn {e['turn']}: player {p}"
        if t == "draw":
            return f"player {p} draws {e['count']}" + (f" ({e['cause']})" if e.get("cause") else "")
        if t == "drew":
            return f"player {p} drew " + ", ".join(name(c) for c in e["cards"])
        if t == "discard":
            return f"player {p} discards {name(e['card'])}"
        if t == "colour":
            return f"player {p} names {self.options['suit_colour_names'][e['suit']]}"
        if t == "play":
            return f"player {p} plays {name(e['card'])} as {'an asset' if e['as'] == 'asset' else 'an event'}"
        if t == "destroy":
            return "destroyed: " + ", ".join(name(c) for c in e["cards"])
        if t == "save":
            return f"player {p} saves {name(e['card'])} with {e['by']}"
        if t == "bottom":
            return f"{name(e['card'])} goes to the bottom of the discard pile"
        if t == "skip":
            return f"player {p} skips a turn"
        if t == "reshuffle":
            return f"the discard pile is shuffled into a new draw pile ({e['count']} cards)"
        if t == "lose":
            return f"player {p} loses ({e['reason']})"
        if t == "forfeit":
            return f"player {p} forfeits ({e['reason']})"
        if t == "end":
            winners = e["winners"]
            who = "nobody" if not winners else ", ".join(f"player {w}" for w in winners)
            return f"game over: {who} wins ({e['reason']})"
        if t == "effect":
            return f"{e['card']}: {e['text']}"
        return str(e)

    # ----------------------------------------------------------------- machinery
    def _advance(self) -> None:
        stack = self.stack
        hands = self.hands
        while True:  # the game is on: a step that ends it is caught below
            frame = stack[-1]
            decision = STEPS[frame["do"]](self, frame)
            if self.result is not None:
                break
            if not all(hands) and self._check_empty_hands():
                break
            if decision is not None:
                if not self._fortune_tellers.isdisjoint(self.in_play[self.turn]) and self._fortune_teller_looks():
                    continue  # the step changed nothing, so asking it again gives the decision anew
                self.pending = decision
                return
        self.pending = None

    def _fortune_teller_looks(self) -> bool:
        """Fortune Teller lets its controller look at the top card of the draw pile all through
        their turn (item 26): the engine has them look whenever a decision is pending in that turn.
        As with every look, an empty draw pile is refilled first (item 10), and the card seen stays
        known while it stays in the pile (P12). Called when the active player controls a Fortune
        Teller; True when this changed the state."""
        p = self.turn
        if not self.draw_pile:
            if len(self.discard) <= 1:
                return False
            self.top_up(1)
        top = self.draw_pile[-1]
        if top in self.known[p]:
            return False
        self.known[p].append(top)
        self._log({"type": "effect", "card": "Fortune Teller", "player": p, "only": p, "cards": [top],
                   "text": f"you see {self.card_text(top)} on top of the draw pile", "at": "draw_pile"})
        return True

    def _check_empty_hands(self) -> bool:
        if all(self.hands):  # every hand holds a card (a player out of the game holds none)
            return False
        empty = [p for p in range(self.players) if self.alive[p] and not self.hands[p]]
        if not empty:
            return False
        if len(empty) > 1 and self.options["simultaneous_empty"] == "turn_order":
            empty = [min(empty, key=lambda p: (p - self.turn) % self.players)]
        self._win(empty, "empty_hand")
        return True


    def current_look(self, player: int) -> dict | None:
        """The hand an effect in progress lets ``player`` look at (Trade, Queen Guinevere), as
        ``{"hand_of": seat, "cards": [...]}``; games saved before Queen Guinevere's look took this
        shape wrote ``"player"`` for ``"hand_of"``."""
        for frame in reversed(self.stack):
            look = frame.get("look")
            if look and look.get("to") == player:
                return {"hand_of": look.get("hand_of", look.get("player")), "cards": list(look["cards"])}
        return None

    # ----------------------------------------------------------------- turns
    def _start_turn(self, p: int) -> None:
        self.turn = p
        self.turn_number += 1
        self.phase = "begin"
        self.played = False
        self.discards_made = 0
        self.bonus_discards = 0
        self.destruction_seen = False
        self.at_risk = []
        self.events.append({"type": "turn", "player": p, "turn": self.turn_number})

    def _next_turn(self) -> None:
        p = self.turn
        while True:
            if self.alive[p] and self.extra[p] > 0:
                self.extra[p] -= 1
                candidate = p
            else:
                candidate = self._next_alive(p)
            if self.skips[candidate] > 0:
                self.skips[candidate] -= 1
                self._log({"type": "skip", "player": candidate})
                p = candidate
                continue
            break
        self._start_turn(candidate)

    def _push_triggers(self, when: str) -> None:
        """Collect the conditional abilities of this moment (a snapshot, item 12) in groups per
        controller, active player first then clockwise (CR §10)."""
        hooked, hooks = self._hooked[when]  # the ids of the cards with an ability now, card id -> its condition
        in_play = self.in_play
        for cards in in_play:  # (a loop: cheaper than all(map(...)) for a few seats)
            if not hooked.isdisjoint(cards):
                break
        else:
            return  # no card in play has an ability at this moment
        active = self.turn
        groups = []
        for q in self._order_from(active):
            mine = in_play[q]
            if hooked.isdisjoint(mine):
                continue
            cards = [c for c in mine if (hook := hooks[c]) is not None and hook(self, q, active)]
            if cards:
                groups.append({"do": "group", "owner": q, "p": active, "cards": cards, "when": when, "active": active})
        self.stack.extend(reversed(groups))

    # ----------------------------------------------------------------- winning and losing
    def _expand_teams(self, players) -> list[int]:
        teams = {self.team[p] for p in players}
        return [q for q in range(self.players) if self.team[q] in teams]

    def _points(self, winners: list[int]) -> list[int]:
        mode = self.options["eliminated_score"]
        most = max((len(h) for h in self.hands), default=0)
        points = []
        for p in range(self.players):
            if p in winners:
                points.append(0)
            elif self.alive[p]:
                points.append(len(self.hands[p]))
            elif mode == "snapshot":
                points.append(self.elim_points[p])
            elif mode == "zero":
                points.append(0)
            else:
                points.append(max(most, max(self.elim_points)) + 1)
        return points

    def _finish(self, winners: list[int], reason: str, detail: str = "", tied: Sequence[int] = ()) -> None:
        points = self._points(winners)
        order = {p: i for i, p in enumerate(self.eliminated)}
        keys: list[float] = []
        for p in range(self.players):
            if p in winners or p in tied:
                keys.append(0)
            elif self.alive[p]:
                keys.append(1 + points[p] / 1000)
            else:
                keys.append(2 + (len(self.eliminated) - order[p]) / 1000)
        self.result = Result(
            winners=sorted(winners),
            reason=reason,
            points=points,
            placements=placements_from_scores(keys),
            eliminated=list(self.eliminated),
            detail=detail,
        )
        self.stack.clear()
        self.pending = None
        self._log({"type": "end", "winners": sorted(winners), "reason": reason})

    def _win(self, players: list[int], reason: str) -> None:
        winners = [p for p in self._expand_teams(players) if self.alive[p]] or self._expand_teams(players)
        self._finish(winners, reason, "shared" if len({self.team[w] for w in winners}) > 1 else "")

    def win(self, players: list[int], reason: str) -> None:
        """Alternate win conditions call this: ``players`` (and their allies) win now."""
        self._win(players, reason)

    def _impossible_draw(self) -> None:
        self._fewest_cards_win("impossible_draw")

    def _fewest_cards_win(self, reason: str) -> None:
        """CR §3: "The player with the fewest cards in hand wins" (ties: ``impossible_draw_tie``)."""
        alive = self._order_from(self.turn)
        fewest = min(len(self.hands[p]) for p in alive)
        winners = [p for p in alive if len(self.hands[p]) == fewest]
        if self.options["impossible_draw_tie"] == "turn_order":
            winners = winners[:1]
        self._win(winners, reason)

    def lose(self, players: list[int], reason: str) -> None:
        """Players (and their allies) lose the game now (CR §2): their hands and the cards they
        control go to the bottom of the discard pile and they leave the game."""
        self._lose(players, reason)

    def _lose(self, players: list[int], reason: str) -> None:
        losers = [p for p in self._order_from(self.turn) if p in self._expand_teams(players)]
        if not losers:
            return
        for p in losers:
            self.elim_points[p] = len(self.hands[p])
            self.alive[p] = False
            self.eliminated.append(p)
            self._log({"type": "lose", "player": p, "reason": reason})
            # Fixed order (hand, then cards in play): see docs/rulings.md, "eliminated cards".
            for c in self.hands[p] + self.in_play[p]:
                self.put_on_bottom(c)
            self.hands[p].clear()
            self.in_play[p].clear()
            self.skips[p] = self.extra[p] = 0
        remaining = {self.team[q] for q in range(self.players) if self.alive[q]}
        if not remaining:
            self._finish([], "all_lost", "tie", tied=losers)
            return
        if len(remaining) == 1:
            self._win([q for q in range(self.players) if self.alive[q]], "last_standing")
            return
        self._drop_frames(set(losers))

    def _drop_frames(self, gone: set[int]) -> None:
        """Cancel the work of players who left; their cards in transit go to the bottom."""
        stack = self.stack
        if self.turn in gone:
            cut = 1
            stack[0]["stage"] = "next"
        else:
            cut = next((i for i in range(1, len(stack)) if stack[i].get("owner") in gone), len(stack))
        if cut < len(stack):
            del stack[cut:]
            referenced = set()
            for f in stack:
                if f["do"] == "event_done":
                    referenced.add(f["card"])
                referenced.update(f.get("cards", ()) if f["do"] in ("bottom", "destroy") else ())
                referenced.update(f.get("holding", ()))
            for c in [c for c in self.limbo if c not in referenced]:
                self.limbo.remove(c)
                self.put_on_bottom(c)

    # ----------------------------------------------------------------- load
    @classmethod
    def _from_dict(cls, d: dict) -> Game:
        game = cls._loaded(d)
        if game.result is None:
            game._advance()
        return game

"""A person at the table: the built-in entrant ``human`` plays through the terminal.

At every decision the player sees their seat's view of the game in words (their hand, the top of
the discard pile and any named colour or suit, every other player's hand size and cards in play,
what happened since their last decision) and the legal options, numbered. They answer with a
number; ``?`` shows help (``? NAME`` the text of a card, ``? rules`` a summary of the rules).

The screen is built only from what the engine gives this seat: ``game.view(seat)``, the labels
of the pending decision's options and the card table every seat gets at the start. Nothing else
of the game object is read, so a person sees exactly what a bot in that seat would see.

There is no time limit. Ctrl-C raises ``KeyboardInterrupt`` as usual: the command stops, keeps
the finished games and exits with 130. End of input (the terminal closed) leaves the game as a
forfeit with fault code ``crash``.
"""

from __future__ import annotations

import sys
from typing import Any, TextIO

from tourney import narrate
from tourney.bots.base import Entrant
from tourney.bots.protocol import FaultCode, ProtocolError
from tourney.bots.spec import EntrantSpec
from tourney.cards_doc import card_help

#: the built-in entrant name of a person at the terminal
HUMAN = "human"

RULES = {
    "crazier-eights": (
        "Crazier Eights: each turn you draw a card, then you may discard one card and may play one "
        "card for its effect, in either order. A discard must share a colour or the rank of the top "
        "of the discard pile; an eight can always be discarded, and you then name the colour the "
        "next discard must have. A card played as an event acts once and goes to the bottom of the "
        "discard pile; an asset stays in play in front of you and keeps acting. The first player "
        "with no cards in hand wins; a few cards win or lose the game by themselves. "
        "Type '? NAME' for any card's text (docs/cards.md)."
    ),
    "crazy-eights": (
        "Crazy Eights: play a card with the suit or the rank of the top card, or an eight, which is "
        "wild: you name the suit that must follow. If you cannot or will not play, you draw until "
        "you can play or the draw pile is empty. The first player with an empty hand wins the deal; "
        "the others score the cards they hold (eight 50, court cards and tens 10, ace 1, others "
        "their value). docs/rulesets.md has the details and the options."
    ),
    "super-crazy-eights": (
        "Super Crazy Eights: play a card with the suit or the rank of the top card, or a wild eight "
        "(name the next suit). Twos make the next hand draw two (more for each two played on them) "
        "unless it answers with a two; threes skip the next hand; aces reverse the direction. A "
        "hand that cannot play draws one card and its turn ends. After your next-to-last card, call "
        "\"last card\" or draw a penalty card later. With two players each controls a concealed hand "
        "and a face-up dummy across the table. A deal ends when a hand is empty (not on a two or a "
        "three); cards left score points, fewer is better. docs/rulesets.md has the details."
    ),
}

HELP = (
    "Type the number of an option and press enter.\n"
    "  ?          this help and the options again\n"
    "  ? rules    a summary of the rules\n"
    "  ? NAME     the text of a card, e.g. '? Trade' (Crazier Eights)\n"
    "  Ctrl-C     leave (finished games are kept)"
)


class HumanEntrant(Entrant):
    """The entrant ``human``: asks a person at the terminal (``stdin``/``stdout`` by default)."""

    def __init__(self, spec: EntrantSpec, seed: int = 0, stdin: TextIO | None = None,
                 stdout: TextIO | None = None):
        super().__init__(spec, seed)
        self._in = stdin
        self._out = stdout
        self.names: list[str] = []
        self.table = narrate.Table("crazier-eights", ())
        self.seat = 0

    # terminal ------------------------------------------------------------------------------
    def say(self, text: str = "") -> None:
        out = self._out or sys.stdout
        out.write(text + "\n")
        out.flush()

    def ask(self, prompt: str) -> str:
        out = self._out or sys.stdout
        out.write(prompt)
        out.flush()
        line = (self._in or sys.stdin).readline()
        if not line:
            raise EOFError
        return line.strip()

    # the entrant interface -------------------------------------------------------------------
    def start(self) -> None:
        self.started = True
        self.bot_name = HUMAN

    def meet(self, names: list[str]) -> None:
        self.names = list(names)

    def begin_game(self, message: dict) -> None:
        self.start()
        self.seat = message["seat"]
        names = self.names or [f"seat {s}" for s in range(message["players"])]
        names = [(f"{n} (you)" if s == self.seat else n) for s, n in enumerate(names)]
        self.table = narrate.make_table(message["rule_set"], names, message.get("cards") or {},
                                        message.get("options") or {})
        others = ", ".join(n for s, n in enumerate(self.names) if s != self.seat) or "the others"
        of = where_in_series(message.get("series") or {}, self.names)
        self.say(f"\n=== {message['rule_set']}{of}: you ({self._me()}) play against {others}; "
                 f"{narrate.player(self.table, message['first_player'])} begins ===")
        return None

    def decide(self, game: Any, seat: int, request_id: int) -> str:
        decision = game.pending
        view = game.view(seat)
        labels = [narrate.option(self.table, o, game.label(o)) for o in decision.options]
        self.say(screen(self.table, view, narrate.words(self.table, decision.prompt), labels))
        while True:
            try:
                answer = self.ask(f"your choice (1-{len(labels)}, ? for help): ")
            except EOFError:
                raise ProtocolError(FaultCode.CRASH, "the player left (end of input)") from None
            if answer.isascii() and answer.isdigit() and 1 <= int(answer) <= len(labels):
                return decision.options[int(answer) - 1]
            if answer.startswith("?"):
                self.say(help_text(self.table, answer[1:].strip(), labels))
            elif answer:
                self.say(f"'{answer}' is not an option: type a number from 1 to {len(labels)}, or ? for help")

    def end_game(self, message: dict) -> None:
        """Tell how the game ended: what happened since the last decision (its last event is the
        end of the game, with the winners and the reason)."""
        view = message.get("view") or {}
        seen = [narrate.event(self.table, e) for e in view.get("events", [])]
        self.say("\n".join(["", "since your last decision:"] + [f"  {line}" for line in seen]))

    def _me(self) -> str:
        return self.names[self.seat] if self.seat < len(self.names) else f"seat {self.seat}"


# -- what the player sees --------------------------------------------------------------------------

def where_in_series(series: dict, names: list[str]) -> str:
    """`` (game 2, best of 3; wins: ann 1, bob 0)`` and the like, from ``game_start``'s series."""
    if not series.get("game"):
        return ""
    parts = [f"game {series['game']}"]
    if series.get("best_of"):
        parts[0] += f", best of {series['best_of']}"
    elif series.get("of") and series["of"] > 1:
        parts[0] += f" of {series['of']}"
    if series.get("leg"):
        parts.append(f"leg {series['leg']}, deal {series.get('deal', 1)}")
    if series["game"] > 1 and series.get("wins") and len(series["wins"]) == len(names):
        parts.append("wins: " + ", ".join(f"{n} {w}" for n, w in zip(names, series["wins"])))
    return f" ({'; '.join(parts)})"


def screen(t: narrate.Table, view: dict, prompt: str, labels: list[str]) -> str:
    """The whole screen of one decision, from the seat's view only."""
    lines = [""]
    events = [narrate.event(t, e) for e in view.get("events", [])]
    if events:
        lines.append("since your last decision:")
        lines += [f"  {line}" for line in events]
    lines += table_lines(t, view)
    lines.append(f"decision: {prompt}" if prompt else "decision:")
    lines += option_lines(labels)
    return "\n".join(lines)


def option_lines(labels: list[str]) -> list[str]:
    return [f"  {i}. {label}" for i, label in enumerate(labels, 1)]


def table_lines(t: narrate.Table, view: dict) -> list[str]:
    """The table as this seat sees it: piles, the other players, the player's own cards."""
    top = view.get("top")
    pile = f"top of the discard pile: {narrate.card(t, top) if top is not None else 'none'}"
    if view.get("named_colour"):
        pile += f"; named colour: {narrate.suit(t, view['named_colour'])}"
    if view.get("named_suit"):
        pile += f"; named suit: {view['named_suit']}"
    if view.get("any_card"):
        pile += "; any card may be played on it"
    lines = [pile, f"draw pile: {narrate.count(view.get('draw_pile', 0))}"]
    if view.get("draw_stack"):
        lines.append(f"draw waiting: {narrate.count(view['draw_stack'])} for the next hand that cannot answer")
    me = view["player"]
    alive = view.get("alive") or [True] * view["players"]
    in_play = view.get("in_play") or []
    sizes = view.get("hand_sizes") or []
    for p in range(view["players"]):
        if p == me:
            continue
        line = f"{narrate.player(t, p)}: {narrate.count(sizes[p]) if p < len(sizes) else '?'} in hand"
        if not alive[p]:
            line += " (out of the game)"
        if p < len(in_play) and in_play[p]:
            line += f"; in play: {narrate.cards(t, in_play[p])}"
        lines.append(line)
    for hand in view.get("hands") or []:  # Super Crazy Eights: hands by position, dummies face up
        if hand.get("player") == me and not hand.get("dummy"):
            continue
        owner = narrate.player(t, hand["player"])
        what = f"{owner}'s dummy" if hand.get("dummy") else owner
        cards = f": {narrate.cards(t, hand['cards'])}" if "cards" in hand else ""
        lines.append(f"{hand['position']} hand ({what}): {narrate.count(hand['size'])}{cards}")
    if me < len(in_play) and in_play[me]:
        lines.append(f"your cards in play: {narrate.cards(t, in_play[me])}")
    hand_cards = view.get("hand") or []
    where = f" ({view['position']})" if view.get("position") else ""
    lines.append(f"your hand{where}, {narrate.count(len(hand_cards))}:")
    lines += [f"  {narrate.card(t, c)}{_kind(t, c)}" for c in hand_cards]
    look = view.get("looking_at")
    if look:
        whose = look.get("hand_of", look.get("player"))
        lines.append(f"you are looking at {narrate.player(t, whose)}'s hand: {narrate.cards(t, look['cards'])}")
    known = view.get("known_draw_pile") or {}
    if known:
        lines.append("you know these draw-pile cards: " + ", ".join(
            f"{narrate.card(t, int(c))} ({_place(pos)})" for c, pos in sorted(known.items(), key=lambda kv: kv[1])))
    return lines


def _kind(t: narrate.Table, cid: int) -> str:
    kind = (t.cards.get(cid) or {}).get("type")
    return f" [{kind}]" if kind in ("asset", "event") else ""


def _place(pos: int) -> str:
    """A draw-pile position (0: the top) in words."""
    if pos == 0:
        return "on top"
    return {1: "2nd", 2: "3rd"}.get(pos, f"{pos + 1}th") + " from the top"


def help_text(t: narrate.Table, topic: str, labels: list[str]) -> str:
    """What ``?``, ``? rules`` and ``? CARD`` show."""
    if topic.lower() in ("rules", "rule"):
        return RULES.get(t.rule_set, "")
    if topic:
        text = card_help(topic)
        if text is None and topic.isascii() and topic.isdigit() and 1 <= int(topic) <= len(labels):
            text = card_help(labels[int(topic) - 1].split(" (")[0].split(" ", 1)[-1])
        return text or f"no card called {topic!r} (the names are in docs/cards.md)"
    return "\n".join([HELP, "options:"] + option_lines(labels))

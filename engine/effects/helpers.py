"""Small building blocks shared by card effects."""

from __future__ import annotations

from engine.common import Decision

#: "card:<id>" for every card id a deck can hold, formatted once rather than at every question
_CARD_IDS = tuple(f"card:{c}" for c in range(512))


def arg(option_id: str) -> int:
    """The number after the colon of an option id such as ``"card:17"``."""
    number = _NUMBERS.get(option_id)
    return int(option_id[option_id.index(":") + 1 :]) if number is None else number


#: "card:<id>" and "player:<seat>" -> the number (answers read at most steps of card effects)
_NUMBERS = {**{option: c for c, option in enumerate(_CARD_IDS)}, **{f"player:{q}": q for q in range(16)}}


def own_turn(game, controller: int, active: int) -> bool:
    """Trigger condition of "at the beginning/end of your turn"."""
    return controller == active


def always(game, controller: int, active: int) -> bool:
    return True


def choose_player(game, frame, prompt: str, players=None):
    """Ask ``frame["p"]`` to choose a player (default: anyone still in the game); returns the
    Decision, or None once answered (the choice is then in ``frame["answer"]``)."""
    if "answer" in frame:
        return None
    options = [f"player:{q}" for q in (players if players is not None else game._order_from(game.turn))]
    return Decision(frame["p"], "player", options, prompt, frame["name"])


def choose_card(game, frame, cards, prompt: str, optional: bool = False, kind: str = "card"):
    """Ask ``frame["p"]`` to choose one of ``cards`` (plus "done" when optional)."""
    if "answer" in frame:
        return None
    options = list(map(_CARD_IDS.__getitem__, cards))
    if optional:
        options.append("done")
    return Decision(frame["p"], kind, options, prompt, frame["name"])


def ask_yes_no(game, frame, prompt: str):
    """Ask ``frame["p"]`` a "may" question (yes or no); returns the Decision, or None once
    answered (the answer is then in ``frame["answer"]``)."""
    if "answer" in frame:
        return None
    return Decision(frame["p"], "yes_no", ["yes", "no"], prompt, frame["name"])


def destroy_one_of(game, frame, cards, prompt: str):
    """The whole step of "destroy a card" from ``cards``, chosen by ``frame["p"]``: nothing
    happens when there is none; the destruction itself is the turn machine's."""
    if not cards:
        game.stack.pop()
        return None
    ask = choose_card(game, frame, cards, prompt, kind="destroy")
    if ask:
        return ask
    game.stack.pop()
    game.destroy([arg(frame["answer"])])
    return None


def any_card_in_play(game, player) -> bool:
    return any(game.in_play[q] for q in range(game.players) if game.alive[q])

"""A stored game as a list of steps the game page can draw, one per decision.

Each step is taken from the engine while it replays the game (:func:`tourney.results.store.replay_steps`),
so what the page shows at step *k* is the engine's state after the first *k* choices: the hands,
the cards in play, the discard pile and the stock, the decision then pending with every legal
option (the one taken marked), and the events since the previous step in words. The last step
is the end of the game, with its result.

Cards are sent once, as a table ``id -> {"name", "rank", "suits", "type"}``; steps name cards by id.
"""

from __future__ import annotations

from tourney.results import store

#: how many discards under the top card a step carries (the page shows the top few)
DISCARDS_SHOWN = 4


def hand_owners(game) -> list[int]:
    """The player who holds each hand: the eights family may give one player two hands (a
    dummy hand), so hands are counted apart from players there."""
    return game.hand_players()


def table_state(game) -> dict:
    """What lies on the table now: every hand, the cards each player has in play, the top of
    the discard pile, the number of cards in the stock, who is still in, and the named suit."""
    view = game.view(0)
    return {
        "hands": [list(hand) for hand in game.hands],
        "in_play": [list(cards) for cards in game.in_play],
        "discard": list(game.discard[-DISCARDS_SHOWN:]),
        "discard_count": len(game.discard),
        "draw_pile": len(game.draw_pile),
        "alive": list(game.alive),
        "named": view.get("named_colour") or view.get("named_suit"),
    }


def decision_data(game, choice: str) -> dict:
    """The pending decision with its options in words and the one ``choice`` marked; a stored
    forfeit (``forfeit:<player>:<reason>``) is the referee's ruling, not one of the options."""
    pending = game.pending
    forfeit = None
    if choice.startswith("forfeit:"):
        _, player, reason = choice.split(":", 2)
        forfeit = {"player": int(player), "reason": reason}
    if pending is None:
        return {"player": None, "kind": None, "prompt": "", "source": None, "options": [],
                "choice": choice, "forfeit": forfeit}
    return {
        "player": pending.player,
        "kind": pending.kind,
        "prompt": pending.prompt,
        "source": pending.source,
        "options": [{"id": o, "label": game.label(o), "chosen": o == choice} for o in pending.options],
        "choice": choice,
        "forfeit": forfeit,
    }


def replay_data(row: dict) -> dict:
    """Every step of the stored game ``row`` (a ``replays`` row): ``cards``, ``owners`` (the
    player of each hand) and ``steps``, each ``{"n", "state", "narration", "decision"}``; the
    last step's ``decision`` is None and ``result`` is the engine's result."""
    steps: list[dict] = []
    told = 0
    game = None
    for n, (game, choice) in enumerate(store.replay_steps(row)):
        # "only": an event one player alone saw (the card drawn), hidden in the others' views
        narration = [{"text": game.describe(e), "only": e.get("only")} for e in game.events[told:]]
        told = len(game.events)
        steps.append({
            "n": n,
            "state": table_state(game),
            "narration": narration,
            "decision": None if choice is None else decision_data(game, choice),
        })
    assert game is not None  # replay_steps always yields the final position
    return {
        "cards": {str(cid): card for cid, card in game.card_table().items()},
        "owners": hand_owners(game),
        "steps": steps,
        "result": game.result.to_dict() if game.result is not None else None,
    }

"""Crazier Eights: the step functions of the turn machine, one per kind of frame.

A step either changes the state and returns ``None``, or returns a :class:`Decision` without
changing anything (see :mod:`engine.crazier`, and its shortcut: a step may run on into the frame it
leaves on top when the machine's checks could find nothing new in between); card effects are steps
too (``"card"`` frames, :mod:`engine.effects`).
"""

from __future__ import annotations

from engine.common import Decision
from engine.crazier.game import STEPS, Game
from engine.crazier.options import _CARD, _COLOUR, _DISCARD, _PLAY
from engine.effects import EFFECTS
from engine.effects.helpers import arg


def _step_turn(g: Game, f: dict):
    """The stages of a turn: begin (triggers), the rules' draw, the main phase, end (triggers),
    then the next turn. Stages that leave nothing to do in between (no trigger pushed, the game
    not over) run on in this one call, down to the next main phase's first decision: the
    machine's checks between them could find nothing new, since only the draw changes a hand and
    it only adds a card."""
    stack = g.stack
    depth = len(stack)
    stage = f["stage"]
    if stage == "end":
        g.phase = "end"
        f["stage"] = "next"
        g._push_triggers("end")
        if len(stack) != depth:
            return None
        stage = "next"
    if stage == "next":
        g._next_turn()
        stage = "begin"
    if stage == "begin":
        g.phase = "begin"
        f["stage"] = "draw"
        g._push_triggers("begin")
        if len(stack) != depth:
            return None
        stage = "draw"
    if stage == "draw":
        g.phase = "draw"
        f["stage"] = "main"
        g.draw(g.turn, 1)
        if g.result is not None:
            return None
    g.phase = "main"
    f["stage"] = "end"
    stack.append({"do": "main", "owner": g.turn})
    return _main_decision(g, g.turn)  # what the main frame, run now, would ask


def _step_main(g: Game, f: dict):
    answer = f.pop("answer", None)
    p = g.turn
    if answer is None:
        return _main_decision(g, p)
    if answer == "end":
        stack = g.stack
        stack.pop()
        # Nothing changed but the stack, so the machine's checks could find nothing new: run the
        # turn frame under this one now (the end of the turn) rather than in another round.
        return _step_turn(g, stack[-1]) if stack[-1]["do"] == "turn" else None
    verb, cid = _MAIN_ANSWERS.get(answer, ("play_top", -1))
    if verb == "discard":
        g.hands[p].remove(cid)
        g.discard.append(cid)
        g.named = None
        g.discards_made += 1
        g.events.append({"type": "discard", "player": p, "card": cid})
        if g._rank[cid] == "8":
            g.stack.append({"do": "colour", "p": p, "owner": p})
    elif verb == "play":
        g.hands[p].remove(cid)
        g.play_card(p, cid)
    else:  # play_top (Fortune Teller)
        cid = g.draw_pile.pop()
        for k in g.known:
            if cid in k:
                k.remove(cid)
        g.play_card(p, cid, from_draw_pile=True)
    if g.result is None and all(g.hands):
        top = g.stack[-1]
        if top is f:
            # Nothing else to do and no hand emptied: the machine would run this frame again and
            # get the next main decision, a function of the state alone, so ask it now (a loaded
            # game, running this frame, asks the same).
            return _main_decision(g, p)
        if top["do"] == "card":  # an event played: its effect, which the machine would run next
            return _step_card(g, top)
    return None


#: a main decision's card option ids -> verb and card id, read once here rather than parsed
_MAIN_ANSWERS = {
    **{option: ("play", cid) for cid, option in enumerate(_PLAY)},
    **{option: ("discard", cid) for cid, option in enumerate(_DISCARD)},
}


def _main_decision(g: Game, p: int) -> Decision:
    return Decision(p, "main", g._main_options(), "play a card, discard, or end the turn")


def _step_colour(g: Game, f: dict):
    answer = f.pop("answer", None)
    if answer is None:
        return Decision(f["p"], "colour", list(_COLOUR), "name a colour for the eight you discarded")
    g.stack.pop()
    suit = answer.partition(":")[2]
    if g.discard:
        g.named = [g.discard[-1], suit]
    g._log({"type": "colour", "player": f["p"], "suit": suit})
    return _back_to_main(g)


def _back_to_main(g: Game):
    """The end of a step that touched no hand nor the game's end: when the main frame is next,
    what it would ask when run now (the machine's checks in between could find nothing new)."""
    return _main_decision(g, g.turn) if g.stack[-1]["do"] == "main" else None


def _step_event_done(g: Game, f: dict):
    g.stack.pop()
    cid = f["card"]
    if cid in g.limbo:
        g.limbo.remove(cid)
        g.put_on_bottom(cid)
    return _back_to_main(g)


def _step_card(g: Game, f: dict):
    resolve = EFFECTS[f["name"]].resolve
    assert resolve is not None, "a card frame is pushed only for an effect that resolves"
    return resolve(g, f)


def _step_group(g: Game, f: dict):
    cards = f["cards"]
    if len(cards) > 1:
        answer = f.pop("answer", None)
        if answer is None:
            return Decision(
                f["p"], "order", [_CARD[c] for c in cards],
                f"choose which ability of player {f['owner']} takes effect next",
            )
        cid = arg(answer)
        cards.remove(cid)
    else:
        cid = cards.pop()
    if not cards:
        g.stack.pop()
    name = g.defs[cid].name
    g.events.append({"type": "effect", "card": name, "text": "takes effect", "player": f["owner"]})
    frame = {
        "do": "card", "name": name, "src": cid, "p": f["owner"], "owner": f["owner"],
        "step": 0, "when": f["when"], "active": f["active"],
    }
    g.stack.append(frame)
    # Nothing done here could make the machine's checks find something new: run the ability now.
    return _step_card(g, frame)


def _step_destroy(g: Game, f: dict):
    stage = f["stage"]
    if stage == "protect":
        per_card = g.options["first_destruction_scope"] == "per_card"
        if per_card:
            f["open"] = [c for c in f["cards"] if c not in g.at_risk]
            g.at_risk.extend(f["open"])
            first = bool(f["open"])
        else:
            first = not g.destruction_seen
            f["open"] = list(f["cards"])
        g.destruction_seen = True
        f["prot"] = []
        if first:
            f["prot"] = [
                [c, q] for q in g._order_from(g.turn) for c in g.in_play[q]
                if (e := g._eff[c]) is not None and e.saves
            ]
        f["stage"] = "save"
        return None
    if stage == "save":
        while f["prot"]:
            protector, ctrl = f["prot"][0]
            left = f.setdefault("left", g._eff[protector].saves)
            candidates = [c for c in f["open"] if c in f["cards"]]
            if left <= 0 or not candidates or not g.alive[ctrl]:
                f["prot"].pop(0)
                f.pop("left", None)
                continue
            answer = f.pop("answer", None)
            if answer is None:
                name = g.defs[protector].name
                return Decision(
                    ctrl, "save", [_CARD[c] for c in candidates] + ["done"],
                    f"{name}: you may save {left} more of the cards about to be destroyed", name,
                )
            if answer == "done":
                f["prot"].pop(0)
                f.pop("left", None)
                continue
            cid = arg(answer)
            f["cards"].remove(cid)
            f["left"] = left - 1
            g._log({"type": "save", "player": ctrl, "card": cid, "by": g.defs[protector].name})
            return None
        f["stage"] = "remove"
        return None
    # remove: the cards leave play together, then go to the bottom in the active player's order
    g.stack.pop()
    gone = []
    for c in f["cards"]:
        q = g.controller(c)
        if q is not None:
            g.in_play[q].remove(c)
            gone.append(c)
    if gone:
        g.limbo.extend(gone)
        g._log({"type": "destroy", "cards": gone})
        g.to_bottom_in_order(gone, g.turn)
    return None


def _step_bottom(g: Game, f: dict):
    cards = f["cards"]
    answer = f.pop("answer", None)
    if answer is None:
        if len(cards) > 1:
            return Decision(
                f["p"], "order", [_CARD[c] for c in cards] + ["done"],
                "choose the next card to put on the bottom of the discard pile (done: the rest as listed)",
            )
        chosen = list(cards)
    elif answer == "done":
        chosen = list(cards)
    else:
        chosen = [arg(answer)]
    for c in chosen:
        cards.remove(c)
        g.limbo.remove(c)
        g.put_on_bottom(c)
    if not cards:
        g.stack.pop()
    return None


STEPS.update({  # the machine's table (engine.crazier.game.STEPS)
    "turn": _step_turn,
    "main": _step_main,
    "colour": _step_colour,
    "event_done": _step_event_done,
    "card": _step_card,
    "group": _step_group,
    "destroy": _step_destroy,
    "bottom": _step_bottom,
})

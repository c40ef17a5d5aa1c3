"""Cards that act on the table (destruction, protection, control changes) and on the piles
(looking at, revealing and moving the top cards of the draw pile, taking assets from the
discard pile).

Readings followed (../shared rules, rulings.md): item 10 (look/reveal top-up), 16 (decisions
belong to whoever controlled the source when it triggered), 19 (the first destruction event of a
turn; the protector window lives in the turn machine), 20 (Allosaurus), 21 (Bewitch and
Restoration need a choice; Armageddon, Raise Dead, Mirror Universe are always playable),
22 (a card put on top of the discard pile is not a discard), 23 (control changes; Titania's card
stays on top; Elven Ritual shuffles the rest back), 26 (Fortune Teller, wired in the machine).

Private looks use ``game.known[p]`` (draw-pile cards whose position ``p`` keeps knowing) or
``frame["look"]`` (a hand looked at during a pending decision); looked-at draw-pile cards stay in
the draw pile while the player decides, so nothing public (limbo) shows them. Revealed cards are
public events.
"""

from __future__ import annotations

from engine.common import Decision, shuffle
from engine.effects.helpers import always, arg, ask_yes_no, choose_card, choose_player, destroy_one_of, own_turn
from engine.effects.registry import register


# ----------------------------------------------------------------- small local helpers
def _names(game, cards) -> str:
    return ", ".join(game.card_text(c) for c in cards)


def _say(game, f, text: str, only: int | None = None, source: str | None = None, **extra) -> None:
    """Log an effect event: ``text`` for people, ``extra`` the same facts as data (the fields
    docs/protocol.md lists under "Crazier Eights effect events"; ``source`` is the ``from``
    field, a word Python keeps for itself)."""
    event = {"type": "effect", "card": f["name"], "text": text, "player": f["p"]}
    if source is not None:
        event["from"] = source
    event.update(extra)
    if only is not None:
        event["only"] = only
    game.events.append(event)


def _others_cards(game, p: int) -> list[int]:
    """Cards in play controlled by players other than ``p`` (still in the game)."""
    return [c for q in game._order_from(game.turn) if q != p for c in game.in_play[q]]


def _gain_control(game, p: int, cid: int) -> None:
    q = game.controller(cid)
    if q is not None and q != p:
        game.in_play[q].remove(cid)
        game.in_play[p].append(cid)


def _forget(game, cards) -> None:
    """Cards that left the draw pile are no longer "known draw-pile cards" of anybody."""
    for k in game.known:
        for c in cards:
            if c in k:
                k.remove(c)


def _top(game, k: int) -> list[int]:
    """The top ``k`` cards of the draw pile (or fewer), top first."""
    return game.draw_pile[::-1][:k]


def _look(game, p: int, cards) -> None:
    for c in cards:
        if c not in game.known[p]:
            game.known[p].append(c)


# ----------------------------------------------------------------- destruction
def _armageddon(game, f):
    game.stack.pop()
    cards = game.all_in_play()
    if cards:
        game.destroy(cards)


def _falling_stars(game, f):
    """Up to two cards, chosen one at a time ("done": no more); they are destroyed together."""
    if "answer" in f:
        answer = f.pop("answer")
        if answer != "done":
            f.setdefault("chosen", []).append(arg(answer))
            return None
        f["stop"] = True
        return None
    chosen = f.get("chosen", [])
    candidates = [c for c in game.all_in_play() if c not in chosen]
    if f.get("stop") or len(chosen) >= 2 or not candidates:
        game.stack.pop()
        game.destroy(chosen)
        return None
    return Decision(
        f["p"], "destroy", [f"card:{c}" for c in candidates] + ["done"],
        f"Falling Stars: choose a card in play to destroy ({2 - len(chosen)} left; done: no more)",
        "Falling Stars",
    )


def _allosaurus(game, f):
    """Its controller (when it triggered) destroys a card the active player controls."""
    active = f["active"]
    cards = list(game.in_play[active]) if game.alive[active] else []
    return destroy_one_of(game, f, cards, f"Allosaurus: choose a card player {active} controls to destroy")


# ----------------------------------------------------------------- control changes
def _bewitch_playable(game, player) -> bool:
    return bool(_others_cards(game, player))


def _bewitch(game, f):
    cards = _others_cards(game, f["p"])
    if not cards:
        game.stack.pop()
        return None
    ask = choose_card(game, f, cards, "Bewitch: choose a card another player controls; you gain control of it")
    if ask:
        return ask
    game.stack.pop()
    cid = arg(f["answer"])
    _gain_control(game, f["p"], cid)
    _say(game, f, f"player {f['p']} gains control of {game.card_text(cid)}")


def _lilith(game, f):
    p = f["p"]
    cards = _others_cards(game, p)
    if not cards or not game.alive[p]:
        game.stack.pop()
        return None
    ask = choose_card(
        game, f, cards, "Lilith: you may gain control of a card another player controls, then draw a card (done: no)",
        optional=True,
    )
    if ask:
        return ask
    game.stack.pop()
    answer = f.pop("answer")
    if answer == "done":
        return None
    cid = arg(answer)
    _gain_control(game, p, cid)
    _say(game, f, f"player {p} gains control of {game.card_text(cid)}")
    game.draw(p, 1, cause=p, source="Lilith")


def _mirror_universe(game, f):
    p = f["p"]
    others = [q for q in game._order_from(p) if q != p]
    if not others:
        game.stack.pop()
        return None
    ask = choose_player(game, f, "Mirror Universe: choose another player to swap all cards in play with", others)
    if ask:
        return ask
    game.stack.pop()
    q = arg(f["answer"])
    game.in_play[p], game.in_play[q] = game.in_play[q], game.in_play[p]
    _say(game, f, f"players {p} and {q} swap the cards they control")


def _queen_guinevere(game, f):
    p = f["p"]
    if f["step"] == 0:
        targets = game.opponents(p) if game.alive[p] else []
        if not targets:
            game.stack.pop()
            return None
        ask = choose_player(game, f, "Queen Guinevere: choose an opponent whose hand you look at", targets)
        if ask:
            return ask
        q = arg(f.pop("answer"))
        f["target"] = q
        f["step"] = 1
        f["look"] = {"to": p, "hand_of": q, "cards": list(game.hands[q])}
        _say(game, f, f"player {p} looks at player {q}'s hand", at="hand", hand_of=q)
        _say(game, f, f"player {q}'s hand: {_names(game, game.hands[q])}", only=p, cards=list(game.hands[q]),
             at="hand", hand_of=q)
        return None
    q = f["target"]
    assets = [c for c in game.hands[q] if c in game.asset_ids] if game.alive[q] else []
    if not assets:
        game.stack.pop()
        return None
    ask = choose_card(
        game, f, assets, f"Queen Guinevere: you may put an asset from player {q}'s hand into play under your control",
        optional=True,
    )
    if ask:
        return ask
    game.stack.pop()
    answer = f.pop("answer")
    if answer == "done":
        return None
    cid = arg(answer)
    game.hands[q].remove(cid)
    game.in_play[p].append(cid)
    _say(game, f, f"player {p} puts {game.card_text(cid)} from player {q}'s hand into play",
         source="hand", hand_of=q, to="in_play")


# ----------------------------------------------------------------- the discard pile
def _restoration_playable(game, player) -> bool:
    return not game.asset_ids.isdisjoint(game.discard)


def _restoration(game, f):
    assets = [c for c in reversed(game.discard) if c in game.asset_ids]  # top first
    if not assets:
        game.stack.pop()
        return None
    ask = choose_card(
        game, f, assets, "Restoration: choose an asset in the discard pile to put into play under your control",
    )
    if ask:
        return ask
    game.stack.pop()
    cid = arg(f["answer"])
    game.take_from_discard(cid)
    game.in_play[f["p"]].append(cid)
    _say(game, f, f"player {f['p']} puts {game.card_text(cid)} from the discard pile into play")


def _raise_dead(game, f):
    game.stack.pop()
    cid = next((c for c in game.discard if c in game.asset_ids), None)  # discard[0] is the bottom
    if cid is None:
        return None
    game.take_from_discard(cid)
    game.in_play[f["p"]].append(cid)
    _say(game, f, f"player {f['p']} puts {game.card_text(cid)} from the bottom of the discard pile into play")


# ----------------------------------------------------------------- the draw pile
def _elven_ritual(game, f):
    p = f["p"]
    if f["step"] == 0:
        game.top_up(5)
        cards = _top(game, 5)
        f["step"] = 1
        f["holding"] = cards
        f["taken"] = 0
        if cards:
            del game.draw_pile[len(game.draw_pile) - len(cards):]
            _forget(game, cards)
            game.limbo.extend(cards)
            _say(game, f, f"player {p} reveals {_names(game, cards)}", cards=list(cards),
                 source="draw_pile", to="limbo")
        return None
    held = f["holding"]
    assets = [c for c in held if c in game.asset_ids]
    if f["taken"] < 2 and assets:
        ask = choose_card(
            game, f, assets,
            f"Elven Ritual: choose a revealed asset to put into play under your control "
            f"({2 - f['taken']} left; done: no more)",
            optional=True,
        )
        if ask:
            return ask
        answer = f.pop("answer")
        if answer != "done":
            cid = arg(answer)
            held.remove(cid)
            game.limbo.remove(cid)
            game.in_play[p].append(cid)
            f["taken"] += 1
            _say(game, f, f"player {p} puts {game.card_text(cid)} into play", source="limbo", to="in_play")
            return None
    # the rest go back and the draw pile is shuffled (item 23)
    game.stack.pop()
    for c in held:
        game.limbo.remove(c)
    game.draw_pile.extend(held)
    shuffle(game.rng, game.draw_pile)
    for k in game.known:
        k.clear()
    _say(game, f, f"{len(held)} revealed cards go back and the draw pile is shuffled", count=len(held),
         shuffled=True, source="limbo", to="draw_pile")
    return None


def _titania(game, f):
    p = f["p"]
    if f["step"] == 0:
        game.top_up(1)
        if not game.draw_pile or not game.alive[p]:
            game.stack.pop()
            return None
        cid = game.draw_pile[-1]
        f["card"] = cid
        f["step"] = 1
        for q in range(game.players):  # revealed: everyone knows it is on top
            if game.alive[q]:
                _look(game, q, [cid])
        _say(game, f, f"player {p} reveals {game.card_text(cid)} from the top of the draw pile", cards=[cid],
             at="draw_pile")
        return None
    cid = f["card"]
    if cid not in game.asset_ids or not game.draw_pile or game.draw_pile[-1] != cid:
        game.stack.pop()  # not an asset: it stays face down on top of the draw pile
        return None
    ask = ask_yes_no(game, f, f"Titania: put {game.card_text(cid)} into play under your control?")
    if ask:
        return ask
    if _take_top_if_yes(game, f, cid):
        game.in_play[p].append(cid)
        _say(game, f, f"player {p} puts {game.card_text(cid)} into play", source="draw_pile", to="in_play")


def _look_at_top(game, f, p):
    """Step 0 of a private look at the top card (Elven Princess, Lighthouse): top up, look, and
    remember the card; later steps get the card back, or None when the effect is over (the frame
    is then popped, or the look step itself was this call)."""
    if f["step"] == 0:
        game.top_up(1)
        if not game.draw_pile or not game.alive[p]:
            game.stack.pop()
            return None
        cid = game.draw_pile[-1]
        f["card"] = cid
        f["step"] = 1
        _look(game, p, [cid])
        _say(game, f, f"player {p} looks at the top card of the draw pile", at="draw_pile", count=1)
        _say(game, f, f"you see {game.card_text(cid)}", only=p, cards=[cid], at="draw_pile")
        return None
    cid = f["card"]
    if not game.draw_pile or game.draw_pile[-1] != cid:
        game.stack.pop()
        return None
    return cid


def _take_top_if_yes(game, f, cid) -> bool:
    """The answer of a "may" about the looked-at top card ``cid`` (Titania, Lighthouse): the
    effect is over; on "yes" the card leaves the draw pile (True) for where the card puts it."""
    game.stack.pop()
    if f.pop("answer") != "yes":
        return False
    game.draw_pile.pop()
    _forget(game, [cid])
    return True


def _look_at_top_cards(game, f, p, k: int) -> None:
    """Step 0 of a private look at the top ``k`` cards (Wood Elf, Morgan le Fay): top up, look,
    and remember them, top first, in ``frame["cards"]``; with nothing to look at the effect is
    over (the frame is popped)."""
    game.top_up(k)
    cards = _top(game, k)
    if not cards or not game.alive[p]:
        game.stack.pop()
        return
    f["cards"] = cards
    f["step"] = 1
    _look(game, p, cards)
    _say(game, f, f"player {p} looks at the top {len(cards)} cards of the draw pile", at="draw_pile", count=len(cards))
    _say(game, f, f"you see {_names(game, cards)} (top first)", only=p, cards=list(cards), at="draw_pile")


def _elven_princess(game, f):
    p = f["p"]
    cid = _look_at_top(game, f, p)
    if cid is None:
        return None
    if "answer" not in f:
        return Decision(
            p, "top_or_bottom", ["top", "bottom"],
            f"Elven Princess: leave {game.card_text(cid)} on top of the draw pile or put it on the bottom",
            "Elven Princess",
        )
    game.stack.pop()
    if f.pop("answer") == "bottom":
        game.draw_pile.pop()
        game.draw_pile.insert(0, cid)
        _say(game, f, f"player {p} puts the card on the bottom of the draw pile",
             on_top=0, on_bottom=1, source="draw_pile", to="draw_pile")
    else:
        _say(game, f, f"player {p} leaves the card on top of the draw pile",
             on_top=1, on_bottom=0, source="draw_pile", to="draw_pile")


def _wood_elf(game, f):
    """Look at the top two; choose the cards to put back on top one at a time, from the top down
    ("done": the rest go to the bottom, keeping their order)."""
    p = f["p"]
    if f["step"] == 0:
        f["top"] = []  # the cards chosen for the top so far
        _look_at_top_cards(game, f, p, 2)
        return None
    cards, top = f["cards"], f["top"]
    rest = [c for c in cards if c not in top]
    if rest and "answer" not in f:
        return Decision(
            p, "order", [f"card:{c}" for c in rest] + ["done"],
            f"Wood Elf: choose the card to put back on top {'first' if not top else 'under it'} "
            "(done: the rest go to the bottom of the draw pile)",
            "Wood Elf",
        )
    answer = f.pop("answer", "done")
    if answer != "done":
        top.append(arg(answer))
        if len(top) < len(cards):
            return None
        rest = []
    game.stack.pop()
    del game.draw_pile[len(game.draw_pile) - len(cards):]
    game.draw_pile[:0] = rest[::-1]  # the upper one stays the upper one
    game.draw_pile.extend(top[::-1])  # the first chosen ends on top
    _say(game, f, f"player {p} puts {len(top)} back on top and {len(rest)} on the bottom of the draw pile",
         on_top=len(top), on_bottom=len(rest), source="draw_pile", to="draw_pile")
    return None


def _lighthouse(game, f):
    p = f["p"]
    cid = _look_at_top(game, f, p)
    if cid is None:
        return None
    ask = ask_yes_no(game, f, f"Lighthouse: put {game.card_text(cid)} on top of the discard pile?")
    if ask:
        return ask
    if _take_top_if_yes(game, f, cid):
        game.put_on_top_of_discard(cid)  # not a discard: an eight is not wild (item 22)
        _say(game, f, f"player {p} puts {game.card_text(cid)} on top of the discard pile", cards=[cid],
             source="draw_pile", to="discard_pile")


def _morgan_le_fay(game, f):
    p = f["p"]
    if f["step"] == 0:
        _look_at_top_cards(game, f, p, 2)
        return None
    cards = f["cards"]
    if len(cards) > 1 and "answer" not in f:
        return Decision(
            p, "card", [f"card:{c}" for c in cards],
            "Morgan le Fay: choose the card to put on top of the discard pile "
            "(the other stays on top of the draw pile)",
            "Morgan le Fay",
        )
    cid = arg(f.pop("answer")) if len(cards) > 1 else cards[0]
    game.stack.pop()
    game.draw_pile.remove(cid)
    _forget(game, [cid])
    game.put_on_top_of_discard(cid)  # not a discard: an eight is not wild (item 22)
    _say(game, f, f"player {p} puts {game.card_text(cid)} on top of the discard pile", cards=[cid],
         source="draw_pile", to="discard_pile", among=len(cards))


# ----------------------------------------------------------------- registration
def register_all() -> None:
    register("Armageddon", resolve=_armageddon)
    register("Falling Stars", resolve=_falling_stars)
    register("Allosaurus", at_begin=always, resolve=_allosaurus)
    register("Guardian Valkyrie", saves=1)
    register("Lancelot", saves=3)
    register("Bewitch", playable=_bewitch_playable, resolve=_bewitch)
    register("Lilith", at_end=own_turn, resolve=_lilith)
    register("Mirror Universe", resolve=_mirror_universe)
    register("Queen Guinevere", at_end=own_turn, resolve=_queen_guinevere)
    register("Restoration", playable=_restoration_playable, resolve=_restoration)
    register("Raise Dead", resolve=_raise_dead)
    register("Elven Ritual", resolve=_elven_ritual)
    register("Titania", at_begin=own_turn, resolve=_titania)
    register("Elven Princess", at_begin=own_turn, resolve=_elven_princess)
    register("Wood Elf", at_begin=own_turn, resolve=_wood_elf)
    register("Lighthouse", at_begin=own_turn, resolve=_lighthouse)
    register("Morgan le Fay", at_begin=own_turn, resolve=_morgan_le_fay)
    # Fortune Teller needs no entry: the turn machine offers "play_top" and shows the top card
    # to its controller during their turn (item 26).


register_all()

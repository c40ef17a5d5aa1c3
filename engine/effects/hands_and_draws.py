"""Cards that move cards between hands, piles and the table without destroying them: draws
(with and without a put-back), extra discards, Trade, Tempest, Hurricane, Revolution, and the
alternate win and loss conditions (Strength in Numbers, King Arthur, Alexander, Crystal Palace).

Orders chosen one card at a time (the tests check them):

- put on top of the draw pile (Study, Research): each chosen card goes on top at once, so the
  first card chosen ends deepest and the last one chosen is the new top card;
- put on the bottom of the draw pile (Sagacious Sorceress, Crystal Ball, Merlin) or of the discard
  pile (Hidden Gold, Treasure): each chosen card goes under at once, so the last card chosen ends
  at the very bottom.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.common import Decision, shuffle
from engine.effects.helpers import any_card_in_play, arg, choose_card, choose_player, own_turn
from engine.effects.registry import register


# ----------------------------------------------------------------- plain draws
# The effects made per card (a count, a place) are small frozen dataclasses rather than closures:
# a closure cannot be pickled, and a game holds its deck's effects (pickle, clone, process pools).
@dataclass(frozen=True)
class _DrawForChosen:
    """"A player of your choice draws n cards" (Forbidden Knowledge, Visionary Dream)."""

    n: int

    def __call__(self, game, f):
        n = self.n
        ask = choose_player(game, f, f"{f['name']}: choose a player who draws {n} cards")
        if ask:
            return ask
        game.stack.pop()
        game.draw(arg(f["answer"]), n, cause=f["p"], source=f["name"])
        return None


@dataclass(frozen=True)
class _DrawForUpToTwo:
    """"Choose up to two players. Those players draw n cards" (Pleasant Memories, Worldly Wisdom):
    the players are chosen one at a time (then "done"); each draws as a separate instance, in
    turn order from the active player (rulings item 8)."""

    n: int

    def __call__(self, game, f):
        n = self.n
        chosen = f.get("chosen", [])
        answer = f.pop("answer", None)
        if answer is not None:
            if answer == "done":
                f["closed"] = True
            else:
                f["chosen"] = chosen + [arg(answer)]
            return None
        if len(chosen) < 2 and not f.get("closed"):
            options = [f"player:{q}" for q in game._order_from(game.turn) if q not in chosen] + ["done"]
            return Decision(
                f["p"], "players", options,
                f"{f['name']}: choose up to {2 - len(chosen)} more player(s) who draw {n} cards (done: no more)",
                f["name"],
            )
        game.stack.pop()
        for q in game._order_from(game.turn):
            if q in chosen:
                game.draw(q, n, cause=f["p"], source=f["name"])
        return None


# ----------------------------------------------------------------- draw, then put back
_PLACES = {
    "discard_bottom": "the bottom of the discard pile",
    "draw_top": "the top of the draw pile",
    "draw_bottom": "the bottom of the draw pile",
}
#: the effect event's field that counts the card put back, by where it goes
_ENDS = {"draw_top": "on_top", "draw_bottom": "on_bottom"}


@dataclass(frozen=True)
class _DrawThenPutBack:
    """"Draw n cards, then put n cards from your hand on <where>" (rulings item 9: only the draw
    is adjusted, the put-back stays as printed unless ``put_back_capped_by_drawn``; never more than
    the hand holds). The cards go one at a time (see the module docstring for the order)."""

    n: int
    where: str

    def __call__(self, game, f):
        n, where, places = self.n, self.where, _PLACES
        p = f["p"]
        if f["step"] == 0:
            got = game.draw(p, n, cause=p, source=f["name"])
            left = n
            if game.options["put_back_capped_by_drawn"]:
                left = min(left, len(got))
            f["left"] = left
            f["step"] = 1
            return None
        hand = game.hands[p]
        if f["left"] <= 0 or not hand or not game.alive[p]:
            game.stack.pop()
            return None
        if len(hand) == 1:
            cid = hand[0]
        elif "answer" not in f:  # asked only now: the prompt is not formatted once answered
            return choose_card(
                game, f, hand,
                f"{f['name']}: choose a card from your hand to put on {places[where]} ({f['left']} to go)",
                kind="put_back",
            )
        else:
            cid = arg(f.pop("answer"))
        hand.remove(cid)
        if where == "discard_bottom":
            game.put_on_bottom(cid)
        else:
            if where == "draw_top":
                game.draw_pile.append(cid)
            else:
                game.draw_pile.insert(0, cid)
            if cid not in game.known[p]:
                game.known[p].append(cid)
            game._log({"type": "effect", "card": f["name"], "player": p,
                       "text": f"player {p} puts a card on {places[where]}",
                       "from": "hand", "to": "draw_pile", _ENDS[where]: 1})
        f["left"] -= 1
        if f["left"] <= 0:
            game.stack.pop()
        return None


# ----------------------------------------------------------------- extra discards
def _potion_of_vitality(game, f):
    game.stack.pop()
    game.bonus_discards += 2
    return None


def _holy_grail(game, f):
    """At the beginning of your turn, draw a card. Then you may discard an additional two cards
    this turn: the two discards are part of the triggered ability, so they come only from a
    Grail in play when the turn began, and stay even if the Grail leaves play later that turn."""
    game.stack.pop()
    game.draw(f["p"], 1, cause=f["p"], source="Holy Grail")
    game.bonus_discards += 2
    return None


# ----------------------------------------------------------------- cards changing hands
def _others(game, p):
    return [q for q in game._order_from(p) if q != p]


def _trade(game, f):
    """Choose another player, look at their hand, exchange one of your cards with one of theirs
    (rulings item 27: the player of Trade picks both cards; the exchange is mandatory)."""
    p = f["p"]
    step = f["step"]
    if step == 0:
        ask = choose_player(game, f, "Trade: choose another player whose hand you look at", _others(game, p))
        if ask:
            return ask
        q = arg(f.pop("answer"))
        f["q"] = q
        f["look"] = {"to": p, "hand_of": q, "cards": list(game.hands[q])}
        f["step"] = 1
        return None
    q = f["q"]
    if not game.hands[q] or not game.hands[p] or not game.alive[q]:
        game.stack.pop()
        return None
    if step == 1:
        ask = choose_card(game, f, game.hands[q], f"Trade: choose the card you take from player {q}'s hand",
                          kind="trade_take")
        if ask:
            return ask
        f["take"] = arg(f.pop("answer"))
        f["step"] = 2
        return None
    ask = choose_card(game, f, game.hands[p], f"Trade: choose the card you give to player {q}", kind="trade_give")
    if ask:
        return ask
    give = arg(f.pop("answer"))
    take = f["take"]
    game.stack.pop()
    game.hands[q].remove(take)
    game.hands[p].remove(give)
    game.hands[p].append(take)
    game.hands[q].append(give)
    game._log({"type": "effect", "card": "Trade", "player": p, "text": f"player {p} exchanges a card with player {q}",
               "with": q})
    game._log({"type": "traded", "player": p, "with": q, "gave": give, "took": take, "only": p})
    game._log({"type": "traded", "player": q, "with": p, "gave": take, "took": give, "only": q})
    return None


def _to_hand(game, cards, q, source):
    for c in cards:
        owner = game.controller(c)
        if owner is not None:
            game.in_play[owner].remove(c)
            game.hands[q].append(c)
    game._log({"type": "effect", "card": source, "player": q,
               "text": f"{', '.join(game.card_text(c) for c in cards)} into the hand of player {q}"})


def _tempest(game, f):
    """Choose a card in play, then a player: the card goes into that player's hand."""
    if f["step"] == 0:
        if not game.all_in_play():  # every card left play (their players forfeited): nothing moves
            game.stack.pop()
            return None
        ask = choose_card(game, f, game.all_in_play(), "Tempest: choose a card in play to put into a hand")
        if ask:
            return ask
        f["card"] = arg(f.pop("answer"))
        f["step"] = 1
        return None
    if f["card"] not in game.all_in_play():  # it left play before it could move (a forfeit)
        game.stack.pop()
        return None
    ask = choose_player(game, f, "Tempest: choose the player whose hand it goes into")
    if ask:
        return ask
    game.stack.pop()
    _to_hand(game, [f["card"]], arg(f["answer"]), "Tempest")
    return None


def _hurricane(game, f):
    """Choose up to two cards in play (one at a time, then "done") and a player: those cards go
    into that player's hand. With no card chosen nothing happens (no player is asked)."""
    chosen = f.get("chosen", [])
    if f["step"] == 0:
        left = [c for c in game.all_in_play() if c not in chosen]
        if len(chosen) < 2 and left:
            ask = choose_card(game, f, left, "Hurricane: choose a card in play to put into a hand (done: no more)",
                              optional=True)
            if ask:
                return ask
            answer = f.pop("answer")
            if answer != "done":
                f["chosen"] = chosen + [arg(answer)]
                return None
        f["step"] = 1
        if not chosen:
            game.stack.pop()
        return None
    ask = choose_player(game, f, "Hurricane: choose the player whose hand those cards go into")
    if ask:
        return ask
    game.stack.pop()
    _to_hand(game, chosen, arg(f["answer"]), "Hurricane")
    return None


def _revolution(game, f):
    """Rulings item 24: every hand of a player still in the game is set aside, shuffled with
    game.rng and dealt one card at a time clockwise starting with the player of Revolution."""
    game.stack.pop()
    order = game._order_from(f["p"])
    cards = []
    for q in range(game.players):
        if game.alive[q]:
            cards.extend(game.hands[q])
            game.hands[q].clear()
    shuffle(game.rng, cards)
    for i, c in enumerate(cards):
        game.hands[order[i % len(order)]].append(c)
    game._log({"type": "effect", "card": "Revolution", "player": f["p"],
               "text": f"{len(cards)} cards dealt again starting with player {f['p']}"})
    for q in order:
        game._log({"type": "dealt", "player": q, "cards": list(game.hands[q]), "only": q})
    return None


# ----------------------------------------------------------------- alternate win and loss
def _four_in_play_active(game, controller, active):
    return len(game.in_play[active]) >= 4


def _four_in_play_own(game, controller, active):
    return controller == active and len(game.in_play[active]) >= 4


def _four_in_play_opponent(game, controller, active):
    return game.is_opponent(controller, active) and len(game.in_play[active]) >= 4


def _nine_in_hand_opponent(game, controller, active):
    return game.is_opponent(controller, active) and len(game.hands[active]) >= 9


def _active_wins(game, f):
    game.stack.pop()
    game.win([f["active"]], f["name"])
    return None


def _active_loses(game, f):
    game.stack.pop()
    game.lose([f["active"]], f["name"])
    return None


def _someone_else(game, player) -> bool:
    return len(_others(game, player)) > 0


register("Forbidden Knowledge", resolve=_DrawForChosen(3))
register("Visionary Dream", resolve=_DrawForChosen(2))
register("Pleasant Memories", resolve=_DrawForUpToTwo(2))
register("Worldly Wisdom", resolve=_DrawForUpToTwo(3))
register("Hidden Gold", resolve=_DrawThenPutBack(3, "discard_bottom"))
register("Treasure", resolve=_DrawThenPutBack(5, "discard_bottom"))
register("Study", resolve=_DrawThenPutBack(2, "draw_top"))
register("Research", resolve=_DrawThenPutBack(3, "draw_top"))
register("Sagacious Sorceress", at_begin=own_turn, resolve=_DrawThenPutBack(1, "draw_bottom"))
register("Crystal Ball", at_begin=own_turn, resolve=_DrawThenPutBack(3, "draw_bottom"))
register("Merlin", at_begin=own_turn, resolve=_DrawThenPutBack(2, "draw_bottom"))
register("Holy Grail", at_begin=own_turn, resolve=_holy_grail)
register("Fountain of Youth", extra_discards_own=1)
register("Potion of Vitality", resolve=_potion_of_vitality)
register("Oberon", opponents_discard_cap=1)
register("Trade", playable=_someone_else, resolve=_trade)
register("Tempest", playable=any_card_in_play, resolve=_tempest)
register("Hurricane", resolve=_hurricane)
register("Revolution", resolve=_revolution)
register("Strength in Numbers", at_begin=_four_in_play_active, resolve=_active_wins)
register("King Arthur", at_begin=_four_in_play_own, resolve=_active_wins)
register("Alexander the Great", at_end=_four_in_play_opponent, resolve=_active_loses)
register("Crystal Palace", at_end=_nine_in_hand_opponent, resolve=_active_loses)

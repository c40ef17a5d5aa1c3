"""The Crazier Eights effect events the hidden-card sampler walks over (engine/knowledge.py) carry
their facts as fields, and the fields agree with the game and with the event's text.

Every event is checked at the moment it is logged (the game's event list is watched), so each
field is compared with the piles and hands it describes as they are then; the text is read here
only to tell the kinds of event of one card apart and to check that words and fields say the
same. Seeded 3- and 4-player games of the built-in bots; every kind of event must occur, so a
card that stops logging one fails too.
"""

from __future__ import annotations

import re
from collections import Counter

import engine
from engine.bots import GreedyBot, RandomBot

LOOKERS = {"Fortune Teller", "Elven Princess", "Lighthouse", "Wood Elf", "Morgan le Fay"}
PUT_BACKS = {"Study": "on_top", "Research": "on_top", "Sagacious Sorceress": "on_bottom",
             "Crystal Ball": "on_bottom", "Merlin": "on_bottom"}
#: every kind of event checked below: each must occur in the games played
KINDS = {"look", "look announced", "Titania reveal", "Titania into play", "Ritual reveal",
         "Ritual into play", "Ritual back", "Princess bottom", "Princess leaves", "Wood Elf",
         "to discard pile", "put back on_top", "put back on_bottom", "Trade", "Queen look announced",
         "Queen look", "Queen take"}


class Watched(list):
    """A game's event list that checks each effect event as it is logged."""

    def __init__(self, game, seen: Counter):
        super().__init__(game.events)
        self.game, self.seen = game, seen
        self.looked: dict[int, list[int]] = {}  # player -> the cards of their last private look
        self.revealed: list[int] = []  # Elven Ritual's cards, until they go back

    def append(self, event) -> None:
        super().append(event)
        if event.get("type") == "effect" and event.get("text") != "takes effect":
            kind = check(self.game, event, self)
            if kind:
                self.seen[kind] += 1


def check(game, e: dict, w: Watched) -> str | None:
    """Assert the fields of one effect event; the kind of event checked (None: not one the walk
    reads)."""
    name, text, p = e["card"], e["text"], e["player"]
    pile, discard = game.draw_pile, game.discard
    place = {k: e[k] for k in ("at", "from", "to") if k in e}
    if name in LOOKERS and "only" in e:
        assert place == {"at": "draw_pile"} and e["only"] == p, e
        assert e["cards"] == pile[::-1][: len(e["cards"])]  # the top of the pile, top first
        w.looked[p] = list(e["cards"])
        return "look"
    if name in LOOKERS and text.startswith(f"player {p} looks at the top"):
        assert place == {"at": "draw_pile"} and "cards" not in e, e
        told = "top card" if e["count"] == 1 else f"top {e['count']} cards"
        assert text.endswith(f"{told} of the draw pile")
        assert e["count"] == min(len(pile), 2 if name in ("Wood Elf", "Morgan le Fay") else 1)
        return "look announced"
    if name == "Titania" and "reveals" in text:
        assert place == {"at": "draw_pile"} and e["cards"] == [pile[-1]] and "only" not in e, e
        return "Titania reveal"
    if name == "Titania" and text.endswith("into play"):
        assert place == {"from": "draw_pile", "to": "in_play"}, e
        assert game.card_text(game.in_play[p][-1]) in text
        return "Titania into play"
    if name == "Elven Ritual" and "reveals" in text:
        assert place == {"from": "draw_pile", "to": "limbo"} and set(e["cards"]) <= set(game.limbo), e
        w.revealed = list(e["cards"])
        return "Ritual reveal"
    if name == "Elven Ritual" and text.endswith("into play"):
        assert place == {"from": "limbo", "to": "in_play"} and game.in_play[p][-1] in w.revealed, e
        w.revealed.remove(game.in_play[p][-1])
        return "Ritual into play"
    if name == "Elven Ritual" and "shuffled" in text:
        assert place == {"from": "limbo", "to": "draw_pile"} and e["shuffled"] is True, e
        assert e["count"] == len(w.revealed) and text.startswith(f"{e['count']} revealed")
        assert not set(w.revealed) & set(game.limbo) and set(w.revealed) <= set(pile)
        w.revealed = []
        return "Ritual back"
    if name in ("Elven Princess", "Wood Elf") and "only" not in e and "draw pile" in text:
        assert place == {"from": "draw_pile", "to": "draw_pile"}, e
        top, under = e["on_top"], e["on_bottom"]
        looked = w.looked.pop(p)
        assert top + under == len(looked)
        assert sorted(pile[len(pile) - top:] + pile[:under]) == sorted(looked)  # where they went
        if name == "Wood Elf":
            assert f"puts {top} back on top and {under} on the bottom" in text
            return "Wood Elf"
        assert (top, under) == ((0, 1) if "bottom" in text else (1, 0))
        return "Princess bottom" if under else "Princess leaves"
    if name in ("Lighthouse", "Morgan le Fay") and "discard pile" in text:
        assert place == {"from": "draw_pile", "to": "discard_pile"} and e["cards"] == [discard[-1]], e
        among = w.looked.pop(p)
        assert e["cards"][0] in among and len(among) == (2 if name == "Morgan le Fay" else 1)
        assert e.get("among", 1) == len(among) and ("among" in e) == (name == "Morgan le Fay"), e
        return "to discard pile"
    if name in PUT_BACKS and "draw pile" in text:
        end = PUT_BACKS[name]
        assert place == {"from": "hand", "to": "draw_pile"} and e[end] == 1, e
        assert ("on_bottom" if end == "on_top" else "on_top") not in e
        assert (pile[-1] if end == "on_top" else pile[0]) in game.known[p]  # the card it put there
        assert ("top" if end == "on_top" else "bottom") in text
        return f"put back {end}"
    if name == "Trade":
        q = e["with"]
        assert isinstance(q, int) and q != p and text == f"player {p} exchanges a card with player {q}", e
        return "Trade"
    if name == "Queen Guinevere":
        q = e["hand_of"]
        assert isinstance(q, int) and q != p and f"player {q}'s hand" in text, e
        if "only" in e:
            assert place == {"at": "hand"} and e["only"] == p and e["cards"] == game.hands[q], e
            return "Queen look"
        if "looks at" in text:
            assert place == {"at": "hand"} and "cards" not in e, e
            return "Queen look announced"
        assert place == {"from": "hand", "to": "in_play"} and game.in_play[p][-1] not in game.hands[q], e
        assert game.card_text(game.in_play[p][-1]) in text
        return "Queen take"
    return None


def test_effect_events_carry_their_facts_as_fields():
    seen: Counter = Counter()
    for seed in range(240):
        players = 3 + seed % 2
        play(seed, players, seen)
    assert set(seen) >= KINDS, sorted(KINDS - set(seen))  # every kind was checked at least once


def play(seed: int, players: int, seen: Counter) -> None:
    """One seeded game of the built-in bots (random and greedy seats), its events watched."""
    game = engine.new_game("crazier-eights", players=players, seed=seed)
    game.events = Watched(game, seen)
    bots = [(GreedyBot if (seat + seed) % 2 else RandomBot)(seed * 16 + seat) for seat in range(players)]
    for bot in bots:
        bot.start(game.card_table())
    while (decision := game.pending) is not None:
        seat = decision.player
        game.apply(bots[seat].choose(decision, lambda seat=seat: game.view(seat)))


def test_the_walk_reads_no_text():
    """The walk's only knowledge of an effect is its fields: rewording every text changes nothing."""
    from engine.knowledge import walk_history
    from engine.sampling import information

    game = engine.new_game("crazier-eights", players=4, seed=11)
    bots = [RandomBot(11 * 16 + seat) for seat in range(4)]
    checked = 0
    while (decision := game.pending) is not None:
        for seat in range(4):
            info = information(game, seat)
            reworded = {**info, "history": [
                {**e, "text": re.sub(r"\w", "x", e["text"])} if e.get("type") == "effect" else e
                for e in info["history"]
            ]}
            a, b = walk_history(info), walk_history(reworded)
            assert (a.ok, a.pile, a.label, a.hands, a.held) == (b.ok, b.pile, b.label, b.hands, b.held)
            checked += 1
        seat = decision.player
        game.apply(bots[seat].choose(decision, lambda seat=seat: game.view(seat)))
    assert checked > 100

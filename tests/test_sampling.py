"""The hidden-card sampler (engine.sampling): uniform over the worlds consistent with what a seat
has seen (chi-square against worlds counted by brute force), reading nothing but that seat's
information, and giving full states the seat cannot tell from the true one."""

import itertools
import math
import random
from collections import Counter

from hypothesis import given
from hypothesis import strategies as st

import engine
from engine.sampling import determinise, information, sample_world, unseen


def chi_square_critical(dof: int, z: float = 3.09) -> float:
    """The chi-square value exceeded with probability about 0.001 (Wilson-Hilferty), z the normal
    quantile: 3.09 for 0.001."""
    h = 2 / (9 * dof)
    return dof * (1 - h + z * math.sqrt(h)) ** 3


def test_the_critical_value_matches_the_published_table():
    # chi-square table, upper 0.001 point: 59 dof -> 98.32 (e.g. NIST/SEMATECH e-Handbook, table 1.3.6.7.4)
    assert abs(chi_square_critical(59) - 98.32) < 0.3


def world_key(world):
    """A world as the seat's unknowns: each unseen hand as a set, the draw pile in order."""
    return (tuple(sorted((h, frozenset(c)) for h, c in world["hands"].items())), tuple(world["draw_pile"]))


def brute_force_worlds(hidden, hands, pile_size, pinned_pile=None, allowed_in_pile=None, keep=None):
    """Every placement of the ``hidden`` cards into hands of the given sizes and a draw pile of
    ``pile_size`` (``pinned_pile``: depth from the top -> card; ``allowed_in_pile``: the cards a
    pile may hold; ``keep``: a test of a world, ``{"hands", "draw_pile"}``), counted by
    enumerating every order of the cards over the places."""
    pinned_pile = pinned_pile or {}
    free = [c for c in hidden if c not in pinned_pile.values()]
    worlds = set()
    for order in itertools.permutations(free):
        order = list(order)
        pile = []
        for depth in range(pile_size):
            pile.append(pinned_pile[depth] if depth in pinned_pile else order.pop())
        if allowed_in_pile is not None and not set(pile) <= allowed_in_pile | set(pinned_pile.values()):
            continue
        out = {}
        for h, size in hands.items():
            out[h] = [order.pop() for _ in range(size)]
        world = {"hands": out, "draw_pile": pile[::-1]}
        if keep is None or keep(world):
            worlds.add(world_key(world))
    return worlds


def assert_uniform(samples: Counter, worlds: set):
    assert set(samples) <= worlds, "a sampled world is not consistent"
    n = sum(samples.values())
    expected = n / len(worlds)
    stat = sum((samples.get(w, 0) - expected) ** 2 / expected for w in worlds)
    assert stat < chi_square_critical(len(worlds) - 1), (stat, len(worlds))
    return stat


def test_classic_position_every_placement_of_the_unseen_cards_is_equally_likely():
    game = engine.load_game({
        "rule_set": "crazy-eights", "players": 2,
        "hands": [["2C", "3C", "4C"], ["5D", "6D"]], "discard_pile": ["KC"],
        "draw_pile": ["7S", "9S", "JS"], "rest": "discard_pile",
    })
    info = information(game, 0)
    deck = [int(c) for c in game.card_table()]
    hidden = game.hands[1] + game.draw_pile
    worlds = brute_force_worlds(hidden, {1: 2}, 3)
    assert len(worlds) == 10 * 6  # which two the opponent holds, the order of the other three
    rng = random.Random(1)
    samples = Counter(world_key(sample_world(info, deck, rng)) for _ in range(3000))
    assert len(samples) == len(worlds)
    assert_uniform(samples, worlds)


def test_the_test_rejects_a_biased_sampler():
    worlds = {(i,) for i in range(60)}
    # 3,000 draws that favour a sixth of the worlds twice over (e.g. a sampler that deals the
    # opponent's hand before shuffling the pile, by a rule that prefers some cards)
    biased = Counter({(i,): 100 if i < 10 else 40 for i in range(60)})
    try:
        assert_uniform(biased, worlds)
    except AssertionError:
        return
    raise AssertionError("a twofold excess on a sixth of the worlds went unnoticed")


def test_crazier_a_card_seen_by_fortune_teller_stays_where_it_is():
    game = engine.load_game({
        "rule_set": "crazier-eights", "players": 2,
        "hands": [["Castle", "Sleep"], ["Death", "Timeshift"]],
        "in_play": [["Fortune Teller"], []],
        "draw_pile": ["Ferocity", "Tempest", "Trade", "Hurricane"],
        "discard_pile": ["Study"],
    })
    info = information(game, 0)
    top = game.draw_pile[-1]
    assert info["known_draw_pile"] == {str(top): 0}  # the look happened
    deck = [int(c) for c in game.card_table()]
    worlds = brute_force_worlds(game.hands[1] + game.draw_pile, {1: 2}, 4, pinned_pile={0: top})
    assert len(worlds) == 10 * 6
    rng = random.Random(2)
    samples = Counter(world_key(sample_world(info, deck, rng)) for _ in range(3000))
    assert all(key[1][-1] == top for key in samples)
    assert_uniform(samples, worlds)


def test_crazier_a_card_given_by_trade_stays_in_the_hand_it_went_to():
    game = engine.load_game({
        "rule_set": "crazier-eights", "players": 3,
        "hands": [["Trade", "Castle", "Sleep"], ["Death", "Timeshift"], ["Ferocity", "Tempest"]],
        "draw_pile": ["Hurricane", "Lilith", "Oberon", "Titania"], "discard_pile": ["Study"],
    })
    game.apply("play:0")  # Trade
    game.apply("player:1")
    taken = int(game.pending.options[0][5:])
    game.apply(game.pending.options[0])  # take a card of player 1
    given = 1  # give Castle
    game.apply(f"card:{given}")
    assert given in game.hands[1] and taken in game.hands[0]
    info = information(game, 0)
    assert unseen(info)["pinned"] == {given: ("hand", 1)}
    deck = [int(c) for c in game.card_table()]
    rng = random.Random(4)
    worlds = [sample_world(info, deck, rng) for _ in range(300)]
    assert all(given in w["hands"][1] for w in worlds)
    # the other unseen cards still go everywhere they may
    assert {c for w in worlds for c in w["hands"][2]} == set(game.hands[1] + game.hands[2] + game.draw_pile) - {given}


def test_super_a_rebuilt_draw_pile_holds_only_cards_of_the_play_pile():
    # a hand-written information state: 12 cards; the play pile (0, 1, 2, 3 then 4 on top) was
    # rebuilt into a draw pile of four, the opponent drew one, 6 was played since
    info = {
        "rule_set": "super-crazy-eights", "player": 0, "players": 2,
        "hand": [7, 8], "hand_sizes": [2, 5], "draw_pile": 3, "discard_pile": [4, 6],
        "history": [
            {"type": "starter", "card": 0}, {"type": "play", "card": 1}, {"type": "play", "card": 2},
            {"type": "play", "card": 3}, {"type": "play", "card": 4},
            {"type": "reshuffle", "count": 4}, {"type": "draw", "player": 1, "count": 1},
            {"type": "play", "card": 6},
        ],
    }
    deck = list(range(12))
    hidden = [0, 1, 2, 3, 5, 9, 10, 11]
    worlds = brute_force_worlds(hidden, {1: 5}, 3, allowed_in_pile={0, 1, 2, 3})
    assert len(worlds) == 4 * 3 * 2  # the pile: three of the four rebuilt cards, in order
    rng = random.Random(3)
    samples = Counter(world_key(sample_world(info, deck, rng)) for _ in range(2400))
    assert_uniform(samples, worlds)


def worlds_of(info, deck, seed, n):
    rng = random.Random(seed)
    return Counter(world_key(sample_world(info, deck, rng)) for _ in range(n))


def reshuffled_position():
    """Three players; the draw pile holds one card and the discard pile five. Seat 1 draws the
    last card, seat 2's draw reshuffles the discard pile but its top card (four cards, named by
    the reshuffle) into a new draw pile and takes one of them, seat 0 draws another."""
    game = engine.load_game({
        "rule_set": "crazier-eights", "players": 3,
        "hands": [["Castle", "Sleep"], ["Death", "Timeshift"], ["Ferocity", "Tempest"]],
        "draw_pile": ["Trade"], "discard_pile": ["Study", "Hurricane", "Lilith", "Oberon", "Titania"],
    })
    for _ in range(3):
        game.apply("end")
    assert game.pending.player == 0
    return game


def test_crazier_a_reshuffled_pile_holds_the_reshuffled_cards_and_the_hand_that_drew_one_holds_it():
    game = reshuffled_position()
    shuffled = next(e for e in game.events if e["type"] == "reshuffle")["cards"]
    assert sorted(shuffled) == sorted(game.draw_pile + [game.hands[2][-1], game.hands[0][-1]])
    info = information(game, 0)
    deck = [int(c) for c in game.card_table()]
    left = set(shuffled) - set(game.hands[0])  # the reshuffled cards seat 0 has not seen since

    def consistent(world):
        # the pile is made of reshuffled cards only; seat 2 drew one of them; seat 1 drew the
        # last card of the old pile, before the reshuffle
        return set(world["draw_pile"]) <= left and len(left & set(world["hands"][2])) == 1

    hidden = game.hands[1] + game.hands[2] + game.draw_pile
    everything = brute_force_worlds(hidden, {1: 3, 2: 3}, 2)
    worlds = brute_force_worlds(hidden, {1: 3, 2: 3}, 2, keep=consistent)
    assert len(everything) == 1120 and len(worlds) == 6 * 10  # the pile's order; seat 1's three of five
    # without the history (as the sampler did before it read reshuffles) impossible worlds come up
    blind = worlds_of(dict(info, history=[]), deck, 5, 300)
    assert not set(blind) <= worlds
    samples = worlds_of(info, deck, 5, 3000)
    assert_uniform(samples, worlds)


def test_crazier_a_card_revealed_on_the_draw_pile_and_drawn_since_is_in_the_hand_that_drew_it():
    game = engine.load_game({
        "rule_set": "crazier-eights", "players": 2,
        "hands": [["Castle", "Death"], ["Timeshift", "Ferocity"]], "in_play": [[], ["Titania"]],
        "draw_pile": ["Trade", "Tempest", "Hurricane", "Lilith"], "discard_pile": ["Study"],
    })
    trade = game.draw_pile[-1]
    game.apply("end")  # seat 1's turn: Titania reveals Trade (an event: it stays), seat 1 draws it
    game.apply("end")
    assert trade in game.hands[1] and game.pending.player == 0
    info = information(game, 0)
    assert info["known_draw_pile"] == {}  # the view no longer says where Trade is
    assert unseen(info)["pinned"] == {trade: ("hand", 1)}
    deck = [int(c) for c in game.card_table()]
    hidden = game.hands[1] + game.draw_pile
    worlds = brute_force_worlds(hidden, {1: 3}, 2, keep=lambda w: trade in w["hands"][1])
    assert len(worlds) == 6 * 2  # seat 1's two other cards of four, the pile's order
    blind = worlds_of(dict(info, history=[]), deck, 6, 300)
    assert any(trade in key[1] for key in blind)  # the old sampler put Trade back on the pile
    assert_uniform(worlds_of(info, deck, 6, 2400), worlds)


def test_crazier_cards_put_back_from_a_hand_holding_reshuffled_cards_are_of_that_hand_s_kinds():
    # seat 1 plays Study: its draw of two reshuffles four cards and takes two of them; it puts
    # back one of those and Death; seat 0 draws Death off the top
    game = engine.load_game({
        "rule_set": "crazier-eights", "players": 2,
        "hands": [["Castle", "Sleep"], ["Study", "Death"]],
        "draw_pile": ["Trade"], "discard_pile": ["Hurricane", "Lilith", "Oberon", "Titania", "Tempest"],
    })
    death = game.hands[1][1]
    game.apply("end")
    game.apply(f"play:{game.hands[1][0]}")  # Study
    shuffled = set(next(e for e in game.events if e["type"] == "reshuffle")["cards"])
    drawn = [c for c in game.hands[1] if c in shuffled]
    assert len(drawn) == 2 and len(game.draw_pile) == 2
    game.apply(f"card:{drawn[0]}")
    game.apply(f"card:{death}")
    game.apply("end")
    assert game.pending.player == 0 and death in game.hands[0]
    info = information(game, 0)
    spec = unseen(info)
    assert spec["pools"] == {1: [0]}  # the put-back card still on the pile belongs with seat 1's hand
    deck = [int(c) for c in game.card_table()]
    hidden = game.hands[1] + game.draw_pile
    # the two cards under it are reshuffled ones; seat 1's hand and the top card hold the rest
    worlds = brute_force_worlds(hidden, {1: 2}, 3, keep=lambda w: set(w["draw_pile"][:2]) <= shuffled)
    assert len(worlds) == 12 * 3
    assert not set(worlds_of(dict(info, history=[]), deck, 8, 300)) <= worlds
    assert_uniform(worlds_of(info, deck, 8, 2400), worlds)


def test_super_cards_drawn_from_a_rebuilt_pile_are_in_the_hand_that_drew_them():
    # three players: player 1 drew one card from the rebuilt pile, player 2 none
    info = {
        "rule_set": "super-crazy-eights", "player": 0, "players": 3,
        "hand": [7, 8], "hand_sizes": [2, 3, 2], "draw_pile": 3, "discard_pile": [4, 6],
        "history": [
            {"type": "starter", "card": 0}, {"type": "play", "player": 0, "card": 1},
            {"type": "play", "player": 1, "card": 2}, {"type": "play", "player": 2, "card": 3},
            {"type": "play", "player": 0, "card": 4}, {"type": "reshuffle", "count": 4},
            {"type": "draw", "player": 1, "count": 1}, {"type": "play", "player": 2, "card": 6},
        ],
    }
    deck = list(range(12))
    rebuilt = {0, 1, 2, 3}
    worlds = brute_force_worlds(
        [0, 1, 2, 3, 5, 9, 10, 11], {1: 3, 2: 2}, 3, allowed_in_pile=rebuilt,
        keep=lambda w: not rebuilt & set(w["hands"][2]),
    )
    assert len(worlds) == 24 * 6
    samples = worlds_of(info, deck, 7, 3000)
    assert set(samples) <= worlds
    assert not set(worlds_of(dict(info, history=[]), deck, 7, 300)) <= worlds


def test_classic_a_buried_eight_stays_in_the_middle_of_the_draw_pile_until_drawn():
    seed = next(s for s in range(500) if any(
        e["type"] == "bury" for e in engine.new_game("crazy-eights", players=2, seed=s).events))
    game = engine.new_game("crazy-eights", players=2, seed=seed)
    eight = next(e["card"] for e in game.events if e["type"] == "bury")
    seat = game.pending.player
    where = unseen(information(game, seat))["pinned"][eight]
    assert where == ("pile", game.draw_pile[::-1].index(eight))
    rng = random.Random(seed)
    seen_drawn = 0
    while game.pending is not None and eight in game.draw_pile + [c for h in game.hands for c in h]:
        game.apply(rng.choice(game.pending.options))  # play on until somebody draws it, and on
        holder = next((h for h, hand in enumerate(game.hands) if eight in hand), None)
        if holder is not None and game.pending is not None and game.pending.player != holder:
            assert unseen(information(game, game.pending.player))["pinned"][eight] == ("hand", holder)
            seen_drawn += 1
    assert seen_drawn  # the other seat knew who held it


def test_the_sampler_reads_only_the_view():
    # two games that differ only in cards seat 0 cannot see: the same information, the same worlds
    base = {
        "rule_set": "crazy-eights", "players": 3,
        "hands": [["2C", "3C"], ["5D", "6D"], ["8S", "QH"]], "discard_pile": ["KC"],
        "draw_pile": ["7S", "9S", "JS"], "rest": "discard_pile",
    }
    other = dict(base, hands=[["2C", "3C"], ["7S", "QH"], ["8S", "JS"]], draw_pile=["5D", "9S", "6D"])
    a, b = engine.load_game(base), engine.load_game(other)
    assert a.to_dict() != b.to_dict()
    assert information(a, 0) == information(b, 0)
    assert determinise(a, 0, random.Random(9)).to_dict() == determinise(b, 0, random.Random(9)).to_dict()
    assert determinise(a, 0, random.Random(9)).to_dict() != determinise(a, 0, random.Random(10)).to_dict()


setups = st.fixed_dictionaries({
    "rule_set": st.sampled_from(sorted(engine.RULE_SETS)),
    "players": st.integers(2, 4),
    "seed": st.integers(0, 2**32 - 1),
    "moment": st.integers(0, 300),
    "world": st.integers(0, 2**32 - 1),
    "teams": st.booleans(),  # teams at four in Crazier Eights, dummies at two in Super
})


@given(setups)
def test_a_sampled_state_looks_the_same_to_the_seat_and_plays_on(s):
    teams = [[0, 2], [1, 3]] if s["teams"] and s["rule_set"] == "crazier-eights" and s["players"] == 4 else None
    # the two-handed Super Crazy Eights (each player a concealed hand and an exposed dummy)
    dummies = s["teams"] and s["rule_set"] == "super-crazy-eights" and s["players"] == 2
    game = engine.new_game(s["rule_set"], players=s["players"], seed=s["seed"], teams=teams,
                           options={"dummies": True} if dummies else None)
    rng = random.Random(s["seed"])
    for _ in range(s["moment"]):
        if game.pending is None:
            return
        game.apply(rng.choice(game.pending.options))
    if game.pending is None:
        return
    seat = game.pending.player
    world = determinise(game, seat, random.Random(s["world"]))
    assert world.view(seat) == game.view(seat)
    assert world.pending == game.pending

    def cards(g):
        return sorted([c for h in g.hands for c in h] + g.draw_pile + g.discard + [c for p in g.in_play for c in p])

    assert cards(world) == cards(game)
    # every fact the sampler keeps is true of the true game
    spec = unseen(information(game, seat))
    for card, (zone, where) in spec["pinned"].items():
        assert card in game.hands[where] if zone == "hand" else game.draw_pile[-1 - where] == card
    labels = spec["labels"]  # the kinds of cards: each place of a kind holds a card of that kind
    for depth, k in spec["pile_labels"].items():
        assert labels.get(game.draw_pile[-1 - depth]) == k
    for h in spec["hands"]:  # a hand with its pool: the cards it put back on the draw pile
        held = game.hands[h] + [game.draw_pile[-1 - depth] for depth in spec["pools"].get(h, ())]
        assert dict(Counter(labels[c] for c in held if c in labels)) == spec["hand_labels"].get(h, {})
    # a game with the same information gives the same worlds: the sampler reads only the view
    for k in range(3):
        assert (determinise(world, seat, random.Random(k)).to_dict()
                == determinise(game, seat, random.Random(k)).to_dict())
    while world.pending is not None:
        world.apply(rng.choice(world.pending.options))

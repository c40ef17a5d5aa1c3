"""engine.common.shuffle deals exactly what ``random.Random.shuffle`` dealt before it replaced it
(so every stored game still replays), and leaves the generator in the same state."""

import random

from hypothesis import given
from hypothesis import strategies as st

from engine.common import shuffle


@given(seed=st.integers(0, 2**64), length=st.integers(0, 120))
def test_the_same_permutation_and_the_same_generator_state_as_random_shuffle(seed, length):
    ours, theirs = random.Random(seed), random.Random(seed)
    a, b = list(range(length)), list(range(length))
    shuffle(ours, a)
    theirs.shuffle(b)
    assert a == b
    assert ours.getstate() == theirs.getstate()


def test_a_shuffle_is_a_permutation_of_the_cards():
    cards = ["a", "b", "c", "d", "e"]
    shuffle(random.Random(3), cards)
    assert sorted(cards) == ["a", "b", "c", "d", "e"] and cards != ["a", "b", "c", "d", "e"]

"""docs/cards.md is generated from engine/cards.py: it must be up to date and in our own words."""

from __future__ import annotations

import difflib
import json
import re
import sys
from pathlib import Path

import pytest

from engine.cards import CARDS
from tourney import cards_doc

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
import gen_printed_fingerprints as printed

SEED_001 = printed.SEED_001
FINGERPRINTS = Path(__file__).resolve().parent / "data" / "printed_fingerprints.json"
SHARED_ITEMS = {str(n) for n in range(1, 31)}


def test_docs_cards_md_is_up_to_date():
    assert cards_doc.DOC_PATH.read_text(encoding="utf-8") == cards_doc.render(), (
        "docs/cards.md is stale: run python3 scripts/gen_cards_doc.py"
    )


def test_every_card_has_a_section_under_its_suit_with_rank_type_and_summary():
    text = cards_doc.render()
    for card in CARDS:
        heading = f"### {card.rank} · {card.name} ({card.type})"
        assert heading in text
        section = text.split(heading, 1)[1].split("\n### ", 1)[0]
        assert card.summary in section
        suit_title = text.rfind("\n## ", 0, text.index(heading))
        assert cards_doc.SUIT_TITLES[next(iter(card.suits))] in text[suit_title:suit_title + 20]


def test_rulings_mapping_names_real_cards_and_items():
    names = {c.name for c in CARDS}
    project_rulings = (cards_doc.DOC_PATH.parent / "rulings.md").read_text(encoding="utf-8")
    project_items = set(re.findall(r"^### (P\d+)\.", project_rulings, re.M))
    for name, items in cards_doc.RULINGS.items():
        assert name in names
        for item, gist in items:
            assert gist, (name, item)
            # an item of the shared rulings (1-30) or of the project's own (docs/rulings.md)
            assert item in SHARED_ITEMS | project_items, (name, item)
    assert set(cards_doc.READINGS) <= names


def _printed_fingerprints() -> dict[str, list[str]]:
    """The fixture of hashed printed-text trigrams (tests/data), for clones without the seeds."""
    return json.loads(FINGERPRINTS.read_text(encoding="utf-8"))


# the seed texts sit next to the project on the development machines, not in every clone
needs_seed = pytest.mark.skipif(not SEED_001.exists(), reason=f"{SEED_001} is not here")


@needs_seed
def test_fingerprint_fixture_is_made_from_the_seed_text():
    assert _printed_fingerprints() == printed.fingerprints(SEED_001.read_text(encoding="utf-8")), (
        "tests/data/printed_fingerprints.json is stale: run python3 scripts/gen_printed_fingerprints.py"
    )


def test_summaries_are_our_own_words_not_the_printed_texts():
    # on any clone: less than half of a summary's word trigrams may occur in the printed text
    # (game terms such as "draw a card" are shared by any wording)
    fingerprints = _printed_fingerprints()
    for card in CARDS:
        ours = printed.trigrams(card.summary)
        shared = len(ours & set(fingerprints[card.name])) / len(ours)
        assert shared < 0.5, f"{card.name}: {shared:.0%} of the summary's phrases are printed ones"


@needs_seed
def test_summaries_are_not_close_to_the_whole_printed_wording():
    texts = printed.printed_texts(SEED_001.read_text(encoding="utf-8"), [c.name for c in CARDS])
    for card in CARDS:
        ratio = difflib.SequenceMatcher(None, card.summary.lower(), texts[card.name].lower()).ratio()
        assert ratio < 0.75, f"{card.name}: summary too close to the printed text ({ratio:.2f})"


def test_the_overlap_check_catches_a_copied_text():
    fingerprints = _printed_fingerprints()
    copied = printed.trigrams("At the end of your turn, you may gain control of a card of your choice")
    assert len(copied & set(fingerprints["Lilith"])) / len(copied) > 0.9

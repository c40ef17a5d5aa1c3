"""docs/cards.md is generated from engine/cards.py: it must be up to date and in our own words."""

from __future__ import annotations

import difflib
import re
from pathlib import Path

import pytest

from engine.cards import CARDS
from tourney import cards_doc

SEED_001 = Path(__file__).resolve().parents[2] / "shared" / "seeds" / "001_eb6d1b40911bfb99.txt"
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
    project_rulings = cards_doc.DOC_PATH.parent / "rulings.md"
    project_items = (set(re.findall(r"^### (P\d+)\.", project_rulings.read_text(encoding="utf-8"), re.M))
                     if project_rulings.exists() else None)
    for name, items in cards_doc.RULINGS.items():
        assert name in names
        for item, gist in items:
            assert gist and (item in SHARED_ITEMS or item.startswith("P"))
            if item.startswith("P") and project_items is not None:
                assert item in project_items, item
    assert set(cards_doc.READINGS) <= names


def _printed_texts() -> dict[str, str]:
    text = SEED_001.read_text(encoding="utf-8")
    out = {}
    for card in CARDS:
        rest = text[text.index(card.name) + len(card.name):]
        paras = [p.strip() for p in re.split(r"\n\s*\n", rest) if p.strip() and p.strip()[0] not in "*#"]
        out[card.name] = " ".join(paras[0].split())
    return out


@pytest.mark.skipif(not SEED_001.exists(), reason="the shared seed texts are not available")
def test_summaries_are_our_own_words_not_the_printed_texts():
    printed = _printed_texts()
    for card in CARDS:
        ratio = difflib.SequenceMatcher(None, card.summary.lower(), printed[card.name].lower()).ratio()
        assert ratio < 0.75, f"{card.name}: summary too close to the printed text ({ratio:.2f})"

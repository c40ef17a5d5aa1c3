#!/usr/bin/env python3
"""Regenerate docs/cards.md from the engine's card data: ``python3 scripts/gen_cards_doc.py``."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from tourney.cards_doc import write

if __name__ == "__main__":
    print(f"wrote {write()}")

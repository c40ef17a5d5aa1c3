"""Write tests/data/printed_fingerprints.json: hashed word trigrams of each card's printed text.

The printed card texts (seed document 001) live outside this repository, in ../shared/seeds.
tests/test_cards_doc.py checks that our card summaries are our own words; with these fingerprints
it can do so on any clone, without the printed texts being copied into the project (a trigram
hash says whether a phrase occurs, not what the phrase is).

    python3 scripts/gen_printed_fingerprints.py
"""

from __future__ import annotations

import hashlib
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SEED_001 = ROOT.parent / "shared" / "seeds" / "001_eb6d1b40911bfb99.txt"
OUT = ROOT / "tests" / "data" / "printed_fingerprints.json"


def trigrams(text: str) -> set[str]:
    """Hashed word trigrams of ``text`` (lower case, letters and digits only)."""
    words = re.findall(r"[a-z0-9]+", text.lower())
    return {hashlib.blake2b(" ".join(words[i:i + 3]).encode(), digest_size=4).hexdigest()
            for i in range(len(words) - 2)}


def printed_texts(seed_text: str, names: list[str]) -> dict[str, str]:
    """Each card's printed rules text: the first paragraph after its name in document 001."""
    out = {}
    for name in names:
        rest = seed_text[seed_text.index(name) + len(name):]
        paras = [p.strip() for p in re.split(r"\n\s*\n", rest) if p.strip() and p.strip()[0] not in "*#"]
        out[name] = " ".join(paras[0].split())
    return out


def fingerprints(seed_text: str) -> dict[str, list[str]]:
    sys.path.insert(0, str(ROOT))
    from engine.cards import CARDS

    texts = printed_texts(seed_text, [c.name for c in CARDS])
    return {name: sorted(trigrams(text)) for name, text in texts.items()}


def main() -> None:
    if not SEED_001.exists():
        sys.exit(f"{SEED_001} is not here: the fingerprints can only be made next to ../shared")
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(fingerprints(SEED_001.read_text(encoding="utf-8")), indent=0,
                           sort_keys=True) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()

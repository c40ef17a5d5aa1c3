"""Benchmark: what one wrong league code costs the server (``tourney serve --club-entry``).

A league gets ``--codes`` live codes (10 by default), then wrong codes are checked as the sign-in
form checks them (``tourney.club.codes.check``), each five times; the hashes computed are counted
by wrapping ``codes.digest`` (one scrypt each: 16 MiB and tens of milliseconds of CPU). Three
kinds of guess:

* ``known``: the public part (first two letters) of a live code, a wrong secret: the worst case;
* ``unknown``: a public part no live code has;
* ``older``: an eight-letter code of the form made before public parts existed (none live here).

Prints one line per kind; the last line is the worst case::

    hashes_per_guess=<int> ms_per_guess=<median> codes=<live codes>

Usage: python bench/club_guess.py [--codes 10]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # before bench/, whose engine.py is a benchmark, not the engine

from tourney.club import codes  # noqa: E402
from tourney.club.league import League  # noqa: E402
from tourney.results.store import open_db  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--codes", type=int, default=10, help="live codes of the league")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = open_db(Path(folder) / "club.db")
        league = League.create(db, "thu", ["Ann", "Bob"], by="bench")
        made = [codes.new_code(league, table=t, by="bench")[0] for t in range(1, args.codes + 1)]
        taken = {codes.normalise(c)[:codes.LOOKUP] for c in made}
        unknown = next(a + b for a in codes.ALPHABET for b in codes.ALPHABET if a + b not in taken)
        hashed = [0]
        real = codes.digest

        def counted(code: str, salt: bytes) -> bytes:
            hashed[0] += 1
            return real(code, salt)

        codes.digest = counted  # type: ignore[assignment]
        guesses = {"unknown": f"{unknown}-ZZZZ-ZZZZ", "older": "ZZZZ-ZZZZ",
                   "known": made[0][:codes.LOOKUP] + "-ZZZZ-ZZZZ"}
        for kind, typed in guesses.items():
            times = []
            for _ in range(5):
                hashed[0] = 0
                start = time.perf_counter()
                assert codes.check(league.tables, league.id, typed) is None
                times.append(time.perf_counter() - start)
            ms = statistics.median(times) * 1000
            print(f"{kind}: {hashed[0]} hashes, {ms:.1f} ms")
        print(f"hashes_per_guess={hashed[0]} ms_per_guess={ms:.0f} codes={args.codes}")


if __name__ == "__main__":
    main()

"""The referee sends the same bytes and writes the same record as before its speed-ups.

The digests below were recorded with the referee before the per-decision work was cut (protocol
1.1, commit 9bebb36): every line sent to each bot (but the hello, which names the installed
version), every log line, the choices and the faults of a few seeded games, for a 1.0 bot, bots
with each 1.1 feature, a time bank, and a bot that answers an illegal option part-way.
A change to the referee that alters any of them fails here. The Crazier Eights digests were
recorded again when the engine's `reshuffle` event came to name its cards and a Fortune Teller
play its origin, and again when the effect events that look at or move cards came to say so in
fields (each time the wire and the record compared with the new fields taken out: identical).
"""

from __future__ import annotations

import hashlib
import textwrap

import pytest

from tourney.bots.entrants import EntrantSpec, Limits, open_entrant
from tourney.bots.referee import play_game
from tourney.bots.sandbox import Policy

#: answers at random from the referee's seed; ``FEATURES`` ("-" for a 1.0 bot) and, optionally,
#: the request number from which it answers an option that was not offered
BOT = textwrap.dedent("""
    import json, random, sys
    features = [] if sys.argv[1] == "-" else sys.argv[1].split(",")
    bad_from = int(sys.argv[2]) if len(sys.argv) > 2 else 0
    rng, asked = random.Random(), 0
    for line in sys.stdin:
        m = json.loads(line)
        if m["type"] == "hello":
            rng.seed(m["seed"])
            print(json.dumps({"type": "hello", "protocol": "tourney-bot", "name": "b",
                              "version": "1.1" if features else "1.0", "features": features}), flush=True)
        elif m["type"] == "request":
            asked += 1
            o = rng.choice(m["options"])
            o = o if isinstance(o, str) else o["id"]
            if bad_from and asked >= bad_from:
                o = "no such option"
            print(json.dumps({"type": "answer", "id": m["id"], "option": o}), flush=True)
        elif m["type"] == "goodbye":
            break
""")

GAMES = {  # name: (rule set, the bots' arguments by seat, time bank, digest)
    "1.0 pair": ("crazier-eights", [["-"], ["-"]], None,
                 "2d147bd7c73685007521009dc58d045b1f00f16b1699ebc543183fb2b9a3131a"),
    "1.1 lean pair": ("crazier-eights", [["option_ids,view_delta"], ["view_delta"]], 3.0,
                      "0c4b1ba009bcd226631d4fa086f14f900ed678a219dc746c22f1259762a88bef"),
    "mixed three, one goes wrong": ("crazier-eights", [["option_ids"], ["-"], ["view_delta", "9"]], None,
                                    "c5e7a2b2902e75775418a9824815f6edb0bc9474c3c6a21bfb69992ff647b252"),
    "crazy-eights": ("crazy-eights", [["view_delta"], ["-"]], None,
                     "cc0d3ada64f91dda808dce19abdd12dcbfdc88a1a2d542aeaa48a7b93b2663a9"),
    "super-crazy-eights": ("super-crazy-eights", [["option_ids,view_delta"], ["-"]], None,
                           "0ade00ee33baa6b93aa64756f966142e2dadf497d5ae16024f5c7aa87863787f"),
}


def digest(rule_set: str, bots: list[list[str]], bank: float | None, script) -> str:
    h = hashlib.sha256()
    limits = Limits(decision_timeout=5.0, grace=0.5, time_bank=bank)
    specs = [EntrantSpec(f"s{i}", command=("{python}", str(script), *args), limits=limits, sandbox=Policy("off"))
             for i, args in enumerate(bots)]
    entrants = [open_entrant(spec, 7 + i) for i, spec in enumerate(specs)]
    try:
        for e in entrants:
            e.wire_log = []
        for seed in (1, 2, 3):
            record = play_game(entrants, rule_set=rule_set, seed=seed)
            for line in record.log:
                h.update(line.encode() + b"\n")
            h.update(repr((record.choices, record.faults, record.fault_details, record.first_player,
                           record.decisions, record.result)).encode())
        for e in entrants:
            for direction, line in e.wire_log:
                if direction == "out" and not line.startswith(b'{"type":"hello"'):
                    h.update(line)
    finally:
        for e in entrants:
            e.close()
    return h.hexdigest()


@pytest.mark.parametrize("name", list(GAMES))
def test_the_referee_sends_what_it_sent_before(name, tmp_path):
    script = tmp_path / "bot.py"
    script.write_text(BOT)
    rule_set, bots, bank, expected = GAMES[name]
    assert digest(rule_set, bots, bank, script) == expected

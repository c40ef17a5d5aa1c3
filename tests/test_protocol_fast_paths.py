"""The referee's short cuts on the subprocess path change no outcome (issue 22).

- ``protocol.read_answer`` reads an answer in the protocol's own compact form without a JSON
  parser: for every line, it must give the option or the fault that parsing in full gives.
- ``game_start`` waits to be written with the bot's first request of the game: a bot that is
  never asked still reads its ``game_start`` before the ``game_end``.
"""

from __future__ import annotations

import textwrap

import pytest

from tourney.bots import protocol
from tourney.bots.entrants import EntrantSpec, Limits, open_entrant
from tourney.bots.protocol import ProtocolError
from tourney.bots.referee import play_game
from tourney.bots.sandbox import Policy

OFFERED = ["play:12", "end", "colour:moon"]

LINES = [
    b'{"type":"answer","id":7,"option":"end"}',  # the compact form
    b'{"type":"answer","id":7,"option":"play:12"}',
    b'{"type": "answer", "id": 7, "option": "end"}',  # spaces: parsed in full
    b'{"type":"answer","id":7,"option":"end"}\r',  # a tolerated carriage return
    b'{"type":"answer","id":7,"option":"e\\u006ed"}',  # an escape that spells an offered id
    b'{"type":"answer","id":7,"option":"end\\""}',  # an escaped quote: not offered
    b'{"type":"answer","id":7,"option":"end","option":"play:12"}',  # a second key wins in JSON
    b'{"type":"answer","id":7,"option":"end"} trailing',  # not one JSON document
    b'{"type":"answer","id":7,"option":"e\tnd"}',  # a raw control character: not JSON
    b'{"type":"answer","id":7,"option":"\xff"}',  # not UTF-8
    b'{"type":"answer","id":7,"option":"nope"}',  # not offered
    b'{"type":"answer","id":8,"option":"end"}',  # another request's id
    b'{"type":"answer","id":70,"option":"end"}',  # the same digits, longer
    b'{"type":"answer","id":7.0,"option":"end"}',  # not an integer
    b'{"type":"answer","id":1180591620717411303424,"option":"end"}',  # 2**70
    b'{"type":"answer","id":7,"option":5}',  # not a string
    b'{"type":"answers","id":7,"option":"end"}',  # another type
    b'{"type":"answer","id":7,"option":""}',
    b'{"type":"answer","id":7,"option":"end"}}',
]


def outcome(read, line: bytes) -> tuple[str, str]:
    try:
        return "option", read(line)
    except ProtocolError as exc:
        return "fault", exc.code


@pytest.mark.parametrize("line", LINES)
def test_read_answer_agrees_with_parsing_in_full(line):
    def in_full(raw: bytes) -> str:
        return protocol.check_answer(protocol.parse_line(raw), 7, OFFERED)

    def short_cut(raw: bytes) -> str:
        return protocol.read_answer(raw, 7, OFFERED)

    assert outcome(short_cut, line) == outcome(in_full, line)


def test_read_answer_takes_the_short_cut_only_for_an_offered_id():
    assert protocol.read_answer(b'{"type":"answer","id":3,"option":"colour:moon"}', 3, OFFERED) == "colour:moon"
    with pytest.raises(ProtocolError) as err:
        protocol.read_answer(b'{"type":"answer","id":3,"option":"colour:sun"}', 3, OFFERED)
    assert err.value.code == "illegal"


#: writes the type of every message it reads to the file named by its argument, answers the first
#: option of a request, or an option never offered when its second argument is "illegal"
RECORDER = textwrap.dedent("""
    import json, sys
    log = open(sys.argv[1], "a")
    for line in sys.stdin:
        m = json.loads(line)
        log.write(m["type"] + "\\n")
        log.flush()
        if m["type"] == "hello":
            print(json.dumps({"type": "hello", "protocol": "tourney-bot", "version": "1.1", "name": "r",
                              "features": ["option_ids", "view_delta"]}), flush=True)
        elif m["type"] == "request":
            option = "no such option" if sys.argv[2] == "illegal" else m["options"][0]
            print(json.dumps({"type": "answer", "id": m["id"], "option": option}), flush=True)
        elif m["type"] == "goodbye":
            break
""")


def test_a_seat_never_asked_reads_game_start_before_game_end(tmp_path):
    script = tmp_path / "recorder.py"
    script.write_text(RECORDER)
    logs = [tmp_path / "seat0.txt", tmp_path / "seat1.txt"]
    specs = [EntrantSpec(f"s{i}", command=("{python}", str(script), str(log), mode),
                         limits=Limits(decision_timeout=5.0, grace=0.5), sandbox=Policy("off"))
             for i, (log, mode) in enumerate(zip(logs, ["illegal", "legal"]))]
    with open_entrant(specs[0], 1) as first, open_entrant(specs[1], 2) as second:
        second.wire_log = []
        record = play_game([first, second], seed=3, first_player=0)
        assert record.faults == {0: "illegal"} and record.result.winners == [1]
        assert record.decisions == 0  # seat 1 was never asked
        sent = [line.split(b'"', 4)[3] for direction, line in second.wire_log if direction == "out"]
        assert sent == [b"hello", b"game_start", b"game_end"]
    # closed: the bot has read everything it was sent, in order
    assert logs[1].read_text().split() == ["hello", "game_start", "game_end", "goodbye"]
    assert logs[0].read_text().split() == ["hello", "game_start", "request"]

"""The bot protocol: message validation, the documented examples, and the view rule (issue 4,
points 1-4).

The view-rule test plays many full games with subprocess bots, records every byte the referee
writes to each bot, and checks every message against the engine: a request carries exactly
``game.view(seat)`` and the pending decision, the other messages carry nothing per-game but the
public setup and the result, and no message changes when the cards the player cannot see are
shuffled among the other hands and the draw pile.
"""

import json
import random
import re
from pathlib import Path

import pytest

import engine
from tourney.bots import protocol
from tourney.bots.entrants import EntrantSpec, Limits, open_entrant
from tourney.bots.protocol import ProtocolError, check_answer, check_hello, parse_line
from tourney.bots.referee import play_game

ROOT = Path(__file__).resolve().parent.parent
RANDOM_BOT = str(ROOT / "examples" / "bots" / "random_bot.py")
DOC = (ROOT / "docs" / "protocol.md").read_text()


# --- validation -----------------------------------------------------------------------------------


def hello(**kw):
    msg = {"type": "hello", "protocol": "tourney-bot", "version": "1.0", "name": "me"}
    msg.update(kw)
    return msg


def test_hello_accepts_same_major_any_minor():
    assert check_hello(hello()) == "me"
    assert check_hello(hello(version="1.7", name="  spaced  ")) == "spaced"


@pytest.mark.parametrize("bad,code", [
    (hello(version="2.0"), "version"),
    (hello(version="0.9"), "version"),
    (hello(version=1), "version"),
    (hello(version="1"), "version"),
    (hello(version="1.x"), "version"),
    (hello(version="1.0.3"), "version"),
    (hello(version=" 1.0"), "version"),
    (hello(protocol="uci"), "version"),
    (hello(name=""), "startup"),
    (hello(name=None), "startup"),
    ({"type": "answer", "id": 1, "option": "end"}, "startup"),
])
def test_hello_refusals(bad, code):
    with pytest.raises(ProtocolError) as info:
        check_hello(bad)
    assert info.value.code == code


def test_version_refusal_names_both_versions():
    with pytest.raises(ProtocolError) as info:
        check_hello(hello(version="2.3"))
    assert "2.3" in info.value.message and protocol.VERSION in info.value.message


@pytest.mark.parametrize("line,code", [
    (b"not json", "malformed"),
    (b"[1, 2]", "malformed"),
    (b'{"no_type": 1}', "malformed"),
    (b'{"type": "answer", "id": "1", "option": "end"}', "malformed"),
    (b'{"type": "answer", "id": true, "option": "end"}', "malformed"),
    (b'{"type": "answer", "id": 1, "option": 3}', "malformed"),
    (b'{"type": "hello", "id": 1, "option": "end"}', "malformed"),
    (b'{"type": "answer", "id": 2, "option": "end"}', "wrong_id"),
    (b'{"type": "answer", "id": 1, "option": "play:99"}', "illegal"),
    (b"\xff\xfe{}", "malformed"),
    (b'{"type": "answer", "id": 1.0, "option": "end"}', "malformed"),
    (b'{"type": "answer", "id": 1e3, "option": "end"}', "malformed"),
    # integers beyond 64 bits are still integers: the wrong id, not a malformed one
    (b'{"type": "answer", "id": 18446744073709551616, "option": "end"}', "wrong_id"),
    (b'{"type": "answer", "id": 1180591620717411303424, "option": "end"}', "wrong_id"),
    (b'{"type": "answer", "id": -9223372036854775809, "option": "end"}', "wrong_id"),
])
def test_answer_faults(line, code):
    with pytest.raises(ProtocolError) as info:
        check_answer(parse_line(line), 1, {"end", "play:3"})
    assert info.value.code == code


def test_valid_answer_with_extra_keys_and_crlf():
    msg = parse_line(b'{"type": "answer", "id": 1, "option": "play:3", "note": "x"}\r')
    assert check_answer(msg, 1, ["end", "play:3"]) == "play:3"


def test_dumps_is_one_compact_line():
    data = protocol.dumps({"type": "x", "text": "a\nb", "cards": {3: {"name": "é"}}})
    assert data.endswith(b"\n") and data.count(b"\n") == 1
    assert json.loads(data) == {"type": "x", "text": "a\nb", "cards": {"3": {"name": "é"}}}


# --- the documentation ------------------------------------------------------------------------


def doc_examples():
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)\n```", DOC, re.S)]


def test_every_documented_message_is_valid_json_and_matches_the_code():
    examples = doc_examples()
    types = [m["type"] for m in examples]
    assert types == ["hello", "hello", "game_start", "request", "answer", "game_end", "goodbye"]
    referee_hello, bot_hello, start, request, answer, end, goodbye = examples
    assert check_hello(bot_hello) == "random_bot"
    offered = [o["id"] for o in request["options"]]
    assert check_answer(answer, request["id"], offered + ["play:38"]) == "play:38"
    # the documented referee messages have exactly the keys the code sends
    assert set(referee_hello) == set(protocol.hello_message({}, 0, "t"))
    built_start = protocol.game_start_message(
        seat=0, players=2, teams=None, rule_set="r", options={}, first_player=0, series=None, cards={})
    assert set(start) == set(built_start)
    built_request = protocol.request_message(1, "main", "", [], {}, 1.0, 30.0)
    assert set(request) == set(built_request)
    result = engine.Result([1], "empty_hand", [4, 0], [2, 1])
    assert set(end) == set(protocol.game_end_message(0, result, {}, {}))
    assert set(end["result"]) == set(protocol.game_end_message(0, result, {}, {})["result"])
    assert goodbye == protocol.GOODBYE
    for code in protocol.FAULT_CODES:
        assert f"| `{code}` |" in DOC


def test_doc_names_protocol_and_version():
    assert f"`{protocol.PROTOCOL}`" in DOC and f"version {protocol.VERSION}" in DOC


# --- the view rule over many full games ------------------------------------------------------------


def ints_in(obj, out):
    if isinstance(obj, bool):
        return out
    if isinstance(obj, int):
        out.add(obj)
    elif isinstance(obj, dict):
        for k, v in obj.items():
            if isinstance(k, str) and k.isdigit():  # card ids as keys, e.g. known_draw_pile
                out.add(int(k))
            ints_in(v, out)
    elif isinstance(obj, list):
        for v in obj:
            ints_in(v, out)
    return out


def shuffled_hidden(game, seat, view, rng):
    """The same game with the cards ``seat`` cannot see shuffled among the other hands and the
    draw pile (sizes kept). The cards the rules let it see there stay in place: draw-pile cards it
    knows (``known_draw_pile``) and cards an effect lets it look at (``looking_at``)."""
    state = game.to_dict()
    visible = ints_in(view.get("known_draw_pile", {}), set())
    ints_in(view.get("looking_at", {}), visible)
    slots = [("hands", q, i) for q, hand in enumerate(state["hands"]) if q != seat
             for i in range(len(hand))]
    slots += [("draw_pile", None, i) for i in range(len(state["draw_pile"]))]

    def get(slot):
        zone, q, i = slot
        return state[zone][q][i] if zone == "hands" else state[zone][i]

    movable = [s for s in slots if get(s) not in visible]
    cards = [get(s) for s in movable]
    rng.shuffle(cards)
    for (zone, q, i), card in zip(movable, cards):
        if zone == "hands":
            state[zone][q][i] = card
        else:
            state[zone][i] = card
    return engine.load_game(state), len(movable)


def expected_request(game, seat, request_id, message, features=frozenset(), previous=None):
    d = game.pending
    if features:  # protocol 1.1: what the bot chose in its hello
        return protocol.lean_request_message(
            request_id, d.kind, d.prompt, d.options, game.label, message["time_left"],
            message.get("time_bank"), getattr(d, "source", None), features, game.view(seat), previous)
    return protocol.request_message(
        request_id, d.kind, d.prompt, [(o, game.label(o)) for o in d.options], game.view(seat),
        message["time_left"], message.get("time_bank"), getattr(d, "source", None))


def check_series(entrants, records, rng):
    """Check every message written to each bot against a replay of each game."""
    outs = [[json.loads(line) for d, line in e.wire_log if d == "out"] for e in entrants]
    cursors = [0] * len(entrants)

    def next_msg(seat):
        msg = outs[seat][cursors[seat]]
        cursors[seat] += 1
        return msg

    for seat in range(len(entrants)):
        assert next_msg(seat)["type"] == "hello"
    permuted = 0
    for record in records:
        assert record.faults == {}
        game = engine.new_game(**record.start())
        cards = game.card_table()
        held: list[dict] = [{} for _ in range(game.players)]  # each seat's view, rebuilt
        previous: list[dict] = [{} for _ in range(game.players)]
        for seat in range(game.players):
            start = next_msg(seat)
            bot_seed = start.pop("seed", None)  # 1.2 reuse: the bot's own seed, never the shuffle's
            assert bot_seed is None or (isinstance(bot_seed, int) and bot_seed != record.seed)
            assert bot_seed is None or protocol.REUSE in entrants[seat].features
            assert start == json.loads(protocol.dumps(protocol.game_start_message(
                seat=seat, players=game.players, teams=record.teams, rule_set=record.rule_set,
                options=record.options, first_player=record.first_player, series=None,
                cards=cards)))
        for request_id, choice in enumerate(record.choices, start=1):
            seat = game.pending.player
            msg = next_msg(seat)
            assert msg["type"] == "request" and msg["id"] == request_id
            features = entrants[seat].features
            if "view_delta" in features:
                held[seat].update(msg["delta"])
                for key in msg.get("gone", []):
                    del held[seat][key]
            else:
                held[seat] = msg["view"]
            assert held[seat] == json.loads(protocol.dumps(game.view(seat)))
            expected = expected_request(game, seat, request_id, msg, features, previous[seat])
            assert msg == json.loads(protocol.dumps(expected))
            # the information-set test: what the player cannot see does not change the message
            other, moved = shuffled_hidden(game, seat, held[seat], rng)
            permuted += moved > 1
            assert other.pending.options == game.pending.options
            assert msg == json.loads(protocol.dumps(
                expected_request(other, seat, request_id, msg, features, previous[seat])))
            previous[seat] = game.view(seat)
            game.apply(choice)
        assert game.result == record.result
        for seat in range(game.players):
            end = next_msg(seat)
            assert end == json.loads(protocol.dumps(
                protocol.game_end_message(seat, game.result, {}, game.view(seat))))
    for seat in range(len(entrants)):
        assert outs[seat][cursors[seat]:] == [{"type": "goodbye"}]
    return permuted


@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_message_follows_the_view_rule(players):
    rng = random.Random(players)
    limits = Limits(decision_timeout=5.0)
    specs = [EntrantSpec(f"r{p}", command=("{python}", RANDOM_BOT), limits=limits)
             for p in range(players)]
    entrants = [open_entrant(spec, seed=p) for p, spec in enumerate(specs)]
    for e in entrants:
        e.wire_log = []
    try:
        records = [play_game(entrants, seed=100 * players + g) for g in range(4)]
    finally:
        for e in entrants:
            e.close()
    assert sum(r.decisions for r in records) > 40 * players
    permuted = check_series(entrants, records, rng)
    assert permuted > 40  # the shuffle test really moved hidden cards in many positions

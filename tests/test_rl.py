"""The learning environments (issue 24, points 1 and 2): PettingZoo's and Gymnasium's own checks,
exact replays, the action mapping's reach, and observations that hold nothing hidden."""

import random
import sys
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

import gymnasium
import numpy as np
from gymnasium.utils.env_checker import check_env
from hypothesis import given, settings
from hypothesis import strategies as st
from pettingzoo.test import api_test, seed_test

import engine
from tourney.rl.aec import EightsEnv, IllegalAction
from tourney.rl.encoding import KINDS, VERBS, Encoding, EncodingError
from tourney.rl.single import ENV_ID, SingleSeatEnv

ROOT = Path(__file__).resolve().parent.parent
RULE_SETS = sorted(engine.RULE_SETS)


# PettingZoo warns that a Dict observation is "not a NumPy array", as for its own card games
pytestmark = pytest.mark.filterwarnings("ignore")


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("rule_set", RULE_SETS)
def test_pettingzoo_api_and_seed_tests(rule_set, players):
    api_test(EightsEnv(rule_set, players), num_cycles=200)
    seed_test(lambda: EightsEnv(rule_set, players), num_cycles=200)


@pytest.mark.parametrize("rule_set,players,teams", [
    ("crazier-eights", 4, [[0, 2], [1, 3]]),
    ("crazier-eights", 8, None),
    ("crazy-eights", 8, None),
    ("super-crazy-eights", 8, None),
    ("super-crazy-eights", 3, None),
])
def test_other_tables_pass_the_api_test(rule_set, players, teams):
    api_test(EightsEnv(rule_set, players, teams=teams), num_cycles=100)


def load_bench_env():
    """bench/env.py as a module (bench/ is no package, and its engine.py must not shadow ours)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_env", ROOT / "bench" / "env.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("rule_set", RULE_SETS)
def test_the_benchmarks_floor_is_an_aec_environment_of_the_same_games(rule_set):
    """bench/env.py's floor arm is the least an environment with these spaces does per step: it is
    a floor only if it is a real AEC environment that plays the same games with the same masks."""
    floor = load_bench_env().FloorEnv(rule_set, 3)
    api_test(floor, num_cycles=100)
    env = EightsEnv(rule_set, 3)
    for seed in range(3):
        floor.reset(seed=seed)
        env.reset(seed=seed)
        rng = random.Random(seed)
        while env.game.pending is not None:
            assert floor.agent_selection == env.agent_selection
            mask = env.last()[0]["action_mask"]
            assert np.array_equal(floor.last()[0]["action_mask"], mask)
            action = int(rng.choice(np.flatnonzero(mask)))
            floor.step(action)
            env.step(action)
        assert floor.game.choices == env.game.choices
        assert all(floor.terminations.values())


def play_masked(env, seed, rng):
    """Play a whole game with random legal actions; the actions chosen."""
    env.reset(seed=seed)
    actions = []
    for agent in env.agent_iter():
        obs, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        actions.append((agent, action))
        env.step(action)
    return actions


@pytest.mark.parametrize("rule_set", RULE_SETS)
def test_a_seeded_game_is_the_engines_game_and_replays_exactly(rule_set):
    env = EightsEnv(rule_set, 3)
    play_masked(env, 11, random.Random(1))
    replayed = engine.replay(env.start(), env.game.choices)
    assert replayed.result == env.game.result
    assert replayed.to_dict() == env.game.to_dict()
    # the same seed and actions again: the same game, decision by decision
    again = EightsEnv(rule_set, 3)
    assert play_masked(again, 11, random.Random(1)) == play_masked(env, 11, random.Random(1))
    assert again.game.choices == env.game.choices


def test_rewards_and_infos_at_the_end():
    env = EightsEnv("crazy-eights", 3, reward="placement")
    env.reset(seed=4)
    rng = random.Random(0)
    totals = dict.fromkeys(env.possible_agents, 0.0)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        totals[agent] += reward
        if terminated:
            assert info["placements"] == env.game.result.placements
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    placements = env.game.result.placements
    for seat, agent in enumerate(env.possible_agents):
        assert totals[agent] == pytest.approx(1 - 2 * (placements[seat] - 1) / 2)
    assert env.agents == []


def test_an_illegal_action_is_refused_and_changes_nothing():
    env = EightsEnv("crazier-eights", 2)
    env.reset(seed=2)
    obs = env.observe(env.agent_selection)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    before = env.game.to_dict()
    with pytest.raises(IllegalAction):
        env.step(illegal)
    assert env.game.to_dict() == before


def test_only_the_seat_asked_has_legal_actions():
    env = EightsEnv("crazy-eights", 4)
    env.reset(seed=1)
    for agent in env.possible_agents:
        mask = env.observe(agent)["action_mask"]
        assert mask.any() == (agent == env.agent_selection)


def collect_options(rule_set, players, games, options=None):
    seen = set()
    for seed in range(games):
        game = engine.new_game(rule_set, players=players, seed=seed, options=options or {})
        rng = random.Random(seed)
        encoding = Encoding.for_game(game)
        while game.pending is not None:
            offered = game.pending.options
            actions = [encoding.action(o) for o in offered]
            assert len(set(actions)) == len(offered), offered  # one decision: distinct actions
            for o, a in zip(offered, actions):
                assert encoding.option(a, offered) == o
            seen.update(o.split(":")[0] if o.split(":")[-1].isdigit() else o for o in offered)
            game.apply(rng.choice(offered))
    return seen


def test_every_option_of_every_rule_set_has_an_action():
    seen = set()
    for rule_set in RULE_SETS:
        for players in (2, 3, 5):
            seen |= collect_options(rule_set, players, 15)
    seen |= collect_options("crazy-eights", 3, 30, {"last_card": True, "special_cards": True})
    # random games meet these verbs; the rest of VERBS are documented ids that map by construction
    for verb in ("play", "discard", "card", "player", "end", "done", "draw", "count:all", "suit:hearts",
                 "colour:moon", "yes", "no"):
        assert verb in seen, verb
    encoding = Encoding(52, 4)
    assert encoding.actions == 3 * 52 + 4 + len(VERBS)
    with pytest.raises(EncodingError):
        encoding.action("teleport:3")
    with pytest.raises(EncodingError):
        encoding.option(encoding.action("end"), ["draw", "pass"])


def test_layout_covers_the_observation_exactly():
    encoding = Encoding(104, 8)
    layout = encoding.layout()
    assert layout[0][1] == 0
    for (_, start, size), (_, nxt, _) in zip(layout, layout[1:]):
        assert start + size == nxt
    assert layout[-1][1] + layout[-1][2] == encoding.size
    assert [name for name, _, _ in layout][-1] == "kind" and len(KINDS) == layout[-1][2]


def test_the_observation_of_a_view_places_its_cards():
    game = engine.new_game("crazy-eights", players=3, seed=5)
    encoding = Encoding.for_game(game)
    seat = game.pending.player
    view = game.view(seat)
    obs = encoding.encode(view, game.pending.kind)
    at = {name: (start, size) for name, start, size in encoding.layout()}
    start, size = at["hand"]
    assert sorted(np.flatnonzero(obs[start:start + size])) == sorted(view["hand"])
    start, _ = at["top"]
    assert obs[start + view["top"]] == 1
    start, size = at["kind"]
    assert obs[start + KINDS.index("turn")] == 1 and obs[start:start + size].sum() == 1
    assert obs[at["hand_size_0"][0]] == pytest.approx(len(view["hand"]) / 52)  # me first


@pytest.mark.parametrize("rule_set", ["crazy-eights", "crazier-eights"])
def test_observations_hold_no_hidden_card(rule_set):
    """Swap a card of an opponent's hidden hand with one of the face-down draw pile: what the
    other seats observe must not change."""
    env = EightsEnv(rule_set, 3)
    env.reset(seed=8)
    asked = env.game.pending.player
    other = (asked + 1) % 3
    data = env.game.to_dict()
    before = {a: env.observe(a)["observation"] for a in env.possible_agents}
    hand, pile = data["hands"][other], data["draw_pile"]
    hand[0], pile[-1] = pile[-1], hand[0]
    env.game = engine.load_game(data)
    for seat, agent in enumerate(env.possible_agents):
        after = env.observe(agent)["observation"]
        if seat == other:
            assert not np.array_equal(after, before[agent])  # its own hand did change
        else:
            assert np.array_equal(after, before[agent]), agent


def test_render_is_the_narrated_log():
    env = EightsEnv("crazy-eights", 2, render_mode="ansi", names=["ann", "bob"])
    play_masked(env, 3, random.Random(3))
    text = env.render()
    assert text.startswith("game: crazy-eights, seed 3")
    assert "ann" in text and "bob" in text and "plays" in text
    assert env.render() == ""  # nothing new since


@pytest.mark.parametrize("rule_set", RULE_SETS)
def test_single_seat_passes_gymnasiums_checker(rule_set):
    check_env(SingleSeatEnv(rule_set, ["greedy", "random"]), skip_render_check=True)


def test_single_seat_illegal_action_forfeits_or_raises():
    env = SingleSeatEnv("crazy-eights", ["greedy"])
    _, info = env.reset(seed=1)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert terminated and reward == -1.0 and info["illegal"] and info["faults"] == {0: "illegal"}
    strict = SingleSeatEnv("crazy-eights", ["greedy"], illegal="raise")
    strict.reset(seed=1)
    with pytest.raises(IllegalAction):
        strict.step(illegal)


def test_single_seat_against_a_protocol_bot_program():
    bot = [sys.executable, str(ROOT / "examples" / "bots" / "random_bot.py")]
    env = SingleSeatEnv("crazier-eights", [bot, "greedy"], seat=None)
    try:
        for seed in range(2):
            obs, info = env.reset(seed=seed)
            assert env.seat == seed % 3
            done = False
            while not done:
                obs, reward, terminated, truncated, info = env.step(int(np.flatnonzero(info["action_mask"])[0]))
                done = terminated or truncated
            assert info["faults"] == {}  # the program answered every request
            assert reward in (-1.0, 0.0, 1.0)
            assert engine.replay(env.start(), env.game.choices).result == env.game.result
    finally:
        env.close()
    assert not env._programs


def test_gymnasium_make_knows_the_single_seat_env():
    env = gymnasium.make(ENV_ID, rule_set="crazy-eights", opponents=["random", "random"])
    obs, info = env.reset(seed=5)
    assert env.unwrapped.players == 3 and env.observation_space.contains(obs)
    env.close()


def test_the_two_handed_form_shows_both_dummies():
    env = EightsEnv("super-crazy-eights", 2)
    env.reset(seed=3)
    at = {name: (start, size) for name, start, size in env.encoding.layout()}
    for seat, agent in enumerate(env.possible_agents):
        view = env.game.view(seat)
        obs = env.observe(agent)["observation"]
        mine = view["dummies"][view["dummy_position"]]
        other = [c for pos, cards in view["dummies"].items() if pos != view["dummy_position"] for c in cards]
        start, size = at["dummy_mine"]
        assert sorted(np.flatnonzero(obs[start:start + size])) == sorted(mine) and mine
        start, size = at["dummy_other"]
        assert sorted(np.flatnonzero(obs[start:start + size])) == sorted(other) and other


@settings(max_examples=15, deadline=None)
@given(rule_set=st.sampled_from(RULE_SETS), players=st.integers(2, 8), seed=st.integers(0, 10**6),
       steps=st.integers(0, 400))
def test_observations_stay_in_bounds_and_masks_are_the_options(rule_set, players, seed, steps):
    env = EightsEnv(rule_set, players)
    env.reset(seed=seed)
    rng = random.Random(seed)
    space = env.observation_space(env.possible_agents[0])
    for _ in range(steps):
        if env.game.pending is None:
            break
        agent = env.agent_selection
        obs = env.observe(agent)
        assert space.contains(obs)
        offered = env.game.pending.options
        assert sorted(env.option_of(a) for a in np.flatnonzero(obs["action_mask"])) == sorted(offered)
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))


def test_max_decisions_truncates_every_agent():
    env = EightsEnv("crazier-eights", 3, max_decisions=5)
    env.reset(seed=1)
    rng = random.Random(0)
    stepped = 0
    for _agent in env.agent_iter():
        obs, reward, terminated, truncated, _ = env.last()
        if terminated or truncated:
            assert truncated and not terminated and reward == 0
            assert not obs["action_mask"].any()
            env.step(None)
            continue
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        stepped += 1
    assert stepped == 5 and env.agents == [] and env.game.result is None


def _reference_observation(encoding: Encoding, view: dict, kind: str | None) -> np.ndarray:
    """The observation as tourney/rl/encoding.py's docstrings describe it, written slice by slice
    with numpy and no shortcut: the fast encoder must give exactly these numbers."""
    from tourney.rl.encoding import NAMED, PHASES, SMALL_CAP, TURN_CAP

    cards, players, me = encoding.cards, encoding.players, view["player"]
    obs = np.zeros(encoding.size, np.float32)
    part = {name: obs[start:start + size] for name, start, size in encoding.layout()}

    def seat(name, s, value=1.0):
        part[f"{name}_{(s - me) % players}"][0] = value

    part["hand"][list(view["hand"])] = 1
    part["discard_pile"][list(view["discard_pile"])] = 1
    if view.get("top") is not None:
        part["top"][view["top"]] = 1
    for s, n in enumerate(view["hand_sizes"]):
        seat("hand_size", s, min(n / cards, 1.0))
    for s, alive in enumerate(view["alive"]):
        seat("alive", s, float(bool(alive)))
    for name in ("active", "dealer"):
        if view.get(name) is not None:
            seat(name, view[name])
    for position, ids in (view.get("dummies") or {}).items():
        mine = position == view.get("dummy_position")
        part["dummy_mine" if mine else "dummy_other"][list(ids)] = 1
    if "phase" in view:
        part["limbo"][list(view["limbo"])] = 1
        part["known_draw_pile"][[int(c) for c in view["known_draw_pile"]]] = 1
        if view.get("looking_at"):
            part["looking_at"][list(view["looking_at"]["cards"])] = 1
            seat("being_looked_at", view["looking_at"]["hand_of"])
        for s, ids in enumerate(view["in_play"]):
            part[f"in_play_{(s - me) % players}"][list(ids)] = 1
        part["turn_number"][0] = min(view["turn"] / TURN_CAP, 1.0)
        for name in ("skips", "extra_turns"):
            for s, n in enumerate(view[name]):
                seat(name, s, min(n / SMALL_CAP, 1.0))
        for team in view["teams"] or ():
            for s in team:
                if me in team and s != me:
                    seat("team_mate", s)
        part["played_this_turn"][0] = float(bool(view["this_turn"]["played"]))
        part["discards_made"][0] = min(view["this_turn"]["discards_made"] / SMALL_CAP, 1.0)
        part["discards_allowed"][0] = min(view["this_turn"]["discards_allowed"] / SMALL_CAP, 1.0)
        if view["phase"] in PHASES:
            part["phase"][PHASES.index(view["phase"])] = 1
    else:
        if view.get("turn") is not None:
            seat("turn", view["turn"])
        holders = {h["position"]: h["player"] for h in view.get("hands") or ()}
        for who in view.get("missed_call") or ():
            holder = holders.get(who) if isinstance(who, str) else who
            if holder is not None:
                seat("missed_call", holder)
        part["clockwise"][0] = float(view.get("direction", "clockwise") == "clockwise")
        part["draw_stack"][0] = min((view.get("draw_stack") or 0) / cards, 1.0)
        part["any_card"][0] = float(bool(view.get("any_card")))
    part["draw_pile"][0] = min(view["draw_pile"] / cards, 1.0)
    part["discard_size"][0] = min(len(view["discard_pile"]) / cards, 1.0)
    named = view.get("named_colour") or view.get("named_suit")
    if named in NAMED:
        part["named"][NAMED.index(named)] = 1
    if kind is not None:
        part["kind"][KINDS.index(kind) if kind in KINDS else len(KINDS) - 1] = 1
    return obs


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("rule_set", RULE_SETS)
def test_every_seats_observation_is_the_reference_encoding_of_its_view(rule_set, players):
    """The environment's (fast) observations: every seat's, at every decision of seeded games,
    equal the plain reference encoding of that seat's view, and the mask is the offered options."""
    env = EightsEnv(rule_set, players)
    for seed in range(3):
        env.reset(seed=seed)
        choice = random.Random(seed).choice
        while (pending := env.game.pending) is not None:
            for s, agent in enumerate(env.possible_agents):
                obs = env.observe(agent)
                kind = pending.kind if s == pending.player else None
                expected = _reference_observation(env.encoding, env.game.view(s), kind)
                assert np.array_equal(obs["observation"], expected), (seed, agent, env.decisions)
                mask = np.flatnonzero(obs["action_mask"])
                offered = sorted(env.encoding.action(o) for o in pending.options) if kind else []
                assert list(mask) == offered
            env.step(choice(np.flatnonzero(env.last()[0]["action_mask"])))


@pytest.mark.parametrize("players", [2, 4])
@pytest.mark.parametrize("rule_set", RULE_SETS)
def test_observations_kept_up_to_date_equal_a_fresh_encoding_of_the_view(rule_set, players):
    """The environment updates each seat's observation in place from the engine's state; observed
    at random moments (so an update spans one step or many), it is always exactly the encoding of
    the seat's view made from scratch, and an observation handed out never changes afterwards."""
    env = EightsEnv(rule_set, players)
    for seed in range(4):
        env.reset(seed=seed)
        rng = random.Random(seed)
        handed_out = []
        while (pending := env.game.pending) is not None:
            for s, agent in enumerate(env.possible_agents):
                if s == pending.player or rng.random() < 0.2:
                    obs = env.observe(agent)["observation"]
                    kind = pending.kind if s == pending.player else None
                    expected = env.encoding.encode(env.game.view(s), kind)
                    assert np.array_equal(obs, expected), (seed, agent, env.decisions)
                    if rng.random() < 0.05:
                        handed_out.append((obs, obs.copy()))
            env.step(rng.choice(np.flatnonzero(env.last()[0]["action_mask"])))
        for obs, copy in handed_out:
            assert np.array_equal(obs, copy)


@pytest.mark.parametrize("rule_set,players,options,teams", [
    ("crazier-eights", 4, None, [[0, 2], [1, 3]]),
    ("crazier-eights", 6, None, [[0, 3], [1, 4], [2, 5]]),
    ("crazier-eights", 8, None, None),
    ("crazy-eights", 5, {"last_card": True, "special_cards": True}, None),
    ("super-crazy-eights", 3, None, None),
])
def test_kept_up_observations_of_other_tables(rule_set, players, options, teams):
    env = EightsEnv(rule_set, players, options=options, teams=teams)
    for seed in range(6):
        env.reset(seed=seed)
        rng = random.Random(seed)
        while (pending := env.game.pending) is not None:
            s = rng.choice([pending.player, rng.randrange(players)])
            kind = pending.kind if s == pending.player else None
            obs = env.observe(env.possible_agents[s])["observation"]
            assert np.array_equal(obs, env.encoding.encode(env.game.view(s), kind)), (seed, s, env.decisions)
            env.step(rng.choice(np.flatnonzero(env.last()[0]["action_mask"])))


@pytest.mark.parametrize("rule_set", RULE_SETS)
def test_kept_up_observations_hold_no_hidden_card(rule_set):
    """Mid-game, after every seat has been observed (so the next observation is an update), swap
    a card of one seat's concealed hand with the bottom card of the face-down draw pile in the
    live game: no other seat's next observation changes."""
    env = EightsEnv(rule_set, 3)
    env.reset(seed=5)
    rng = random.Random(5)
    for _ in range(12):
        env.step(rng.choice(np.flatnonzero(env.last()[0]["action_mask"])))
    game = env.game
    before = {a: env.observe(a)["observation"] for a in env.possible_agents}
    other = (game.pending.player + 1) % 3
    hand = game.hands[other]
    hand[0], game.draw_pile[0] = game.draw_pile[0], hand[0]
    for seat, agent in enumerate(env.possible_agents):
        after = env.observe(agent)["observation"]
        assert np.array_equal(after, before[agent]) != (seat == other), agent


@pytest.mark.parametrize("rule_set", RULE_SETS)
def test_single_seat_observations_are_the_encoding_of_the_learners_view(rule_set):
    """What the learner is trained on is what a protocol bot computes from its requests."""
    env = SingleSeatEnv(rule_set, ["random", "greedy"], seat=None)
    rng = random.Random(2)
    for seed in range(3):
        obs, info = env.reset(seed=seed)
        done = False
        while not done:
            game = env.game
            kind = game.pending.kind if game.pending is not None and game.pending.player == env.seat else None
            assert np.array_equal(obs["observation"], env.encoding.encode(game.view(env.seat), kind))
            obs, _, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            done = terminated or truncated

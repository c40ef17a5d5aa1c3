"""Fair play (issue 13): a hostile bot, run by ``tourney run``, tries every way out.

With the sandbox on, each route is blocked; the same bot with ``sandbox = "off"`` gets through
where docs/protocol.md ("Fair play") says it would, so these tests can fail. The sandbox needs
Linux and bubblewrap; the README's test command installs bubblewrap, so on Linux these tests
fail rather than skip when it is missing.
"""

import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from helpers import GREEDY_AND_RANDOM, processes_with, snapshot
from typer.testing import CliRunner

import tourney.commands  # noqa: F401  (registers the commands)
from tourney import seeding
from tourney.app import app
from tourney.bots import sandbox
from tourney.bots.entrants import EntrantError, EntrantSpec, Limits, open_entrant
from tourney.bots.referee import play_game
from tourney.bots.sandbox import Policy

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "tests" / "bots"
FAULT_BOT = str(BOTS / "fault_bot.py")
RANDOM_BOT = str(ROOT / "examples" / "bots" / "random_bot.py")
SECRET = "fairplay-" + uuid.uuid4().hex

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="bot sandboxes need Linux namespaces")


def test_this_machine_can_isolate_bots():
    assert sandbox.problem() is None  # the README's test command installs bubblewrap


def run_hostile(tmp_path, mode: str, extra: str = "", event_extra: str = "") -> tuple[dict, dict]:
    """Run a one-game match of the hostile bot against a legal bot with ``sandbox = mode``; its
    folder holds the database and the config, as in the demo. Returns (findings, faults)."""
    home = tmp_path / "home"  # the bot's folder: 0755 like a checkout, so nobody may read it
    for d in (home, home / "results", home / "configs"):
        d.mkdir()
        d.chmod(0o755)
    shutil.copy(BOTS / "hostile_bot.py", home)
    if "writable" in extra and os.geteuid() == 0:
        os.chown(home, 0, sandbox.NOBODY)  # the bot runs in the group nogroup, with a uid of its own
        home.chmod(0o775)
    db, config, outside = home / "results" / "t.db", home / "configs" / "e.toml", home / "outside"
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    marker = "marker-" + uuid.uuid4().hex
    args = ["--db", str(db), "--config", str(config), "--port", str(listener.getsockname()[1]),
            "--outside", str(outside), "--marker", marker, "--secret", SECRET, "--seed", "2024",
            "--engine", str(ROOT / "engine" / "__init__.py")]
    config.write_text(f"""
[event]
name = "fairplay"
format = "match"
seed = 2024
games = 1
{event_extra}

[limits]
sandbox = "{mode}"
decision_timeout = 10.0

[[entrants]]
name = "hostile"
command = ["{{python}}", "hostile_bot.py", {", ".join(json.dumps(a) for a in args)}]
cwd = ".."
{extra}

[[entrants]]
name = "legal"
command = ["{{python}}", "{FAULT_BOT}", "legal", "2", "{marker}"]
""")
    # the referee is a process of its own, started with the secret and the database's path in
    # its environment, as a user would start it
    env = dict(os.environ, TOURNEY_FAIRPLAY_SECRET=SECRET, TOURNEY_DB=str(db), PYTHONPATH=str(ROOT))
    env.pop(sandbox.PRIVATE_ENV, None)
    try:
        done = subprocess.run([sys.executable, "-m", "tourney", "run", str(config), "-j", "1", "--quiet"],
                              env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
    finally:
        listener.close()
    survivors = processes_with(marker)
    for pid in survivors:  # the unsandboxed run's setsid grandchild: the test cleans up
        os.kill(pid, 9)
        try:
            os.waitpid(pid, 0)  # it may have fallen to us
        except ChildProcessError:
            pass
    with sqlite3.connect(db) as conn:
        stderr, faults = conn.execute("select stderr, faults from game_logs").fetchone()
    said = json.loads(stderr).get("0", "")
    assert "FINDINGS " in said, (faults, said, done.stderr)
    line = next(x for x in said.splitlines() if x.startswith("FINDINGS "))
    findings = json.loads(line.removeprefix("FINDINGS "))
    findings["survivors"] = len(survivors)
    findings["wrote_outside_file"] = outside.exists()
    return findings, json.loads(faults)


def test_the_sandbox_blocks_every_route(tmp_path):
    found, faults = run_hostile(tmp_path, "on")
    assert found["visible_pids"] <= 3  # the sandbox's init, the bot, the probe's own listing
    assert found["ppid"] == 1 and found["parent_cwd"] in (None, "/")
    # its parent is the sandbox's PID 1, a copy of bwrap whose options came through a pipe
    assert found["parent_cmdline"].startswith("bwrap --args ") and "--bind" not in found["parent_cmdline"]
    assert not found["secret_in_env"] and not found["tourney_db_in_env"]
    assert not found["db_in_open_files"]
    assert not found["db_readable"] and not found["db_writable"] and not found["config_readable"]
    assert not found["tcp_connected"]
    assert found["signalled"] == 0 and faults == {}  # the other bot played the game out
    assert found["survivors"] == 0  # the setsid grandchild ended with the sandbox
    assert not found["wrote_outside"] and not found["wrote_outside_file"]
    assert not found["wrote_own_dir"]
    assert found["wrote_scratch"]
    if os.geteuid() == 0:
        assert found["uid"] > sandbox.BOT_UID_BASE  # its own, never root
    # it knows the config, so the event seed, but the shuffle is keyed with the event's secret
    assert found["deal_recovered"] is None


def test_without_the_sandbox_the_same_bot_gets_through(tmp_path):
    found, faults = run_hostile(tmp_path, "off")
    assert found["visible_pids"] > 3
    assert "tourney run" in found["parent_cmdline"]  # the referee's
    assert found["secret_in_env"] and found["tourney_db_in_env"]
    assert found["db_in_open_files"] and found["db_readable"] and found["db_writable"]
    assert found["config_readable"]
    assert found["tcp_connected"]
    assert found["signalled"] >= 1 and "1" in faults  # it killed the other bot
    assert found["survivors"] == 1
    assert found["wrote_outside"] and found["wrote_outside_file"]
    assert found["deal_recovered"] == "stolen secret"  # read from the database it could open


def test_public_seeds_give_the_deal_away(tmp_path):
    # what docs/formats.md says public_seeds gives up: the config alone rebuilds every shuffle
    found, _ = run_hostile(tmp_path, "on", event_extra="public_seeds = true")
    assert found["deal_recovered"] == "public formula"
    assert not found["db_readable"]


def test_network_and_writable_open_just_those(tmp_path):
    found, _ = run_hostile(tmp_path, "on", "network = true\nwritable = true")
    assert found["tcp_connected"]
    assert found["wrote_own_dir"] and found["wrote_outside_file"]  # its folder is its own
    assert found["visible_pids"] <= 3
    assert not found["db_readable"] and not found["config_readable"]  # hidden all the same
    assert found["survivors"] == 0


# --- where isolation is impossible: "auto" warns once and runs, "on" refuses --------------------


@pytest.fixture
def no_bwrap(monkeypatch):
    """A machine without bubblewrap: the probe's answer is forgotten before and after."""
    monkeypatch.setattr(sandbox, "BWRAP", "/nonexistent/bwrap")
    monkeypatch.setattr(sandbox, "_PROBLEM", [])
    monkeypatch.setattr(sandbox, "_WARNED", False)
    yield


def random_bot(mode):
    return EntrantSpec("r", command=("{python}", RANDOM_BOT), sandbox=Policy(mode),
                       limits=Limits(startup_timeout=5.0, grace=0.3))


def test_auto_falls_back_with_one_warning_line(no_bwrap, capsys):
    assert "bubblewrap (bwrap) is not installed" in sandbox.problem()
    for _ in range(2):
        with open_entrant(random_bot("auto")) as bot, \
                open_entrant(EntrantSpec("g", builtin="greedy")) as other:
            record = play_game([bot, other], seed=3)
            assert record.faults == {} and not bot.isolated
    warnings = capsys.readouterr().err.splitlines()
    assert warnings == ['warning: bots run without a sandbox (sandbox = "auto"): bubblewrap (bwrap) '
                        "is not installed (Debian, Ubuntu: apt-get install bubblewrap)"]


def test_on_refuses_to_start_a_bot_it_cannot_isolate(no_bwrap):
    with open_entrant(random_bot("on")) as bot, pytest.raises(EntrantError) as info:
        bot.start()
    assert info.value.code == "startup"
    assert info.value.message.startswith('sandbox = "on", but bubblewrap (bwrap) is not installed')
    assert bot.pids == []  # nothing was started


def test_on_refuses_an_event_before_writing_anything(no_bwrap, tmp_path):
    from tourney.config import ConfigError, parse_config

    raw = {"event": {"name": "e", "format": "match", "games": 1}, "limits": {"sandbox": "on"},
           "entrants": [{"name": "a", "command": ["{python}", RANDOM_BOT]},
                        {"name": "b", "builtin": "random"}]}
    with pytest.raises(ConfigError) as info:
        parse_config(raw, "e.toml", str(tmp_path))
    assert str(info.value) == ('e.toml: limits.sandbox: "on", but bubblewrap (bwrap) is not '
                               "installed (Debian, Ubuntu: apt-get install bubblewrap)")
    raw["limits"]["sandbox"] = "off"  # asked for: no probe, no refusal
    assert parse_config(raw, "e.toml", str(tmp_path)).entrants[0]["limits"] == {"sandbox": "off"}


@pytest.mark.parametrize("key,value,problem", [
    ("sandbox", "yes", 'expected "auto", "on" or "off", got \'yes\''),
    ("network", "yes", "expected true or false, got 'yes'"),
])
def test_sandbox_settings_are_checked(tmp_path, key, value, problem):
    from tourney.config import ConfigError, parse_config

    bot = {"name": "a", "command": ["{python}", RANDOM_BOT]}
    if key == "sandbox":
        bot["limits"] = {key: value}
    else:
        bot[key] = value
    raw = {"event": {"name": "e", "format": "match", "games": 1},
           "entrants": [bot, {"name": "b", "builtin": "random"}]}
    with pytest.raises(ConfigError) as info:
        parse_config(raw, "e.toml", str(tmp_path))
    assert problem in str(info.value)


# --- the sandbox's filesystem, from its command line ---------------------------------------------


def mounts(argv):
    """(option, destination) pairs of a bwrap command line."""
    pairs = []
    i = 1
    while argv[i] != "--":
        if argv[i] in ("--ro-bind", "--bind", "--symlink", "--setenv"):
            pairs.append((argv[i], argv[i + 2]))
            i += 3
        elif argv[i] in ("--tmpfs", "--dir", "--chdir", "--dev", "--proc", "--info-fd", "--perms",
                         "--size", "--seccomp"):
            pairs.append((argv[i], argv[i + 1]))
            i += 2
        else:
            pairs.append((argv[i], None))
            i += 1
    return pairs


def test_private_folders_inside_a_bots_folder_are_covered(tmp_path):
    for d in ("bots/me", "results", "configs", "bots/other"):
        (tmp_path / d).mkdir(parents=True)
    (tmp_path / "bots/me/bot.py").write_text("")
    (tmp_path / "results/t.db").write_text("")
    (tmp_path / "top.db").write_text("")
    private = [str(tmp_path / p) for p in ("results/t.db", "configs", "bots/other", "bots/me", "top.db")]
    argv = sandbox.bwrap_argv(["python3", "bots/me/bot.py"], str(tmp_path), policy=Policy(),
                              private=private)
    m = mounts(argv)
    assert ("--ro-bind", str(tmp_path)) in m and ("--bind", str(tmp_path)) not in m
    # folders of private things are covered whole; the bot's own folder is not
    assert {("--tmpfs", str(tmp_path / d)) for d in ("results", "configs", "bots/other")} <= set(m)
    assert ("--tmpfs", str(tmp_path / "bots/me")) not in m
    # a private file in the bot's own folder is covered by itself
    assert ("--ro-bind", str(tmp_path / "top.db")) in m
    assert ("--unshare-net", None) in m and ("--tmpfs", "/tmp") in m
    assert argv[-2:] == ["python3", "bots/me/bot.py"]


def test_network_and_writable_change_just_their_options(tmp_path):
    plain = mounts(sandbox.bwrap_argv(["true"], str(tmp_path), policy=Policy()))
    opened = mounts(sandbox.bwrap_argv(["true"], str(tmp_path), policy=Policy(network=True, writable=True)))
    assert set(plain) - set(opened) == {("--unshare-net", None), ("--ro-bind", str(tmp_path))}
    assert set(opened) - set(plain) == {("--bind", str(tmp_path))}


def test_as_root_the_bot_gets_a_uid_of_its_own(tmp_path):
    argv = sandbox.bwrap_argv(["true"], str(tmp_path), policy=Policy(), as_root=True)
    assert "--unshare-user" not in argv  # a user namespace would map the bot back onto root
    options, rest = argv[:argv.index("--")], argv[argv.index("--") + 1:]
    assert options[options.index("--setenv") + 1:][:2] == [sandbox.UID_ENV, sandbox.UID_SLOT]
    assert rest[:3] == [sandbox.SHELL, "-c", sandbox.SWITCH_USER] and rest[3] == sandbox.SETPRIV
    assert "--regid=65534" in rest and "--clear-groups" in rest and rest[-1] == "true"
    # the uid is made from bwrap's pid when it is known: two bots alive never share one
    launch = sandbox.Launch(["bwrap"], None, {}, args=b"--setenv\0TOURNEY_BOT_UID\0<bot-uid>\0")
    read, launch.args_fd = os.pipe()
    launch.started(4321)
    assert os.read(read, 100) == f"--setenv\0TOURNEY_BOT_UID\0{sandbox.BOT_UID_BASE + 4321}\0".encode()
    assert launch.uid == sandbox.bot_uid(4321) != sandbox.bot_uid(4322)
    os.close(read)


def test_check_says_whether_the_bot_is_isolated():
    args = ["check", "--games", "1", "--", "{python}", RANDOM_BOT]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0 and "ok   sandbox: the bot runs isolated" in result.output
    result = CliRunner().invoke(app, ["check", "--sandbox", "off", *args[1:]])
    assert result.exit_code == 0 and "--   sandbox: off, as asked" in result.output


# --- deals a bot cannot recompute -----------------------------------------------------------------


def test_seeds_match_digests_computed_with_openssl():
    # printf 'tourney/game/2024/0/0' | openssl dgst -sha256 [-hmac 00112233445566778899aabbccddeeff]
    assert seeding.game_seed(2024, 0, 0) == 0x8B6FB005032B88CB & (2**63 - 1)
    key = "00112233445566778899aabbccddeeff"
    assert seeding.game_seed(2024, 0, 0, secret=key) == 0x2E2E7DDC7196E568


#: a bot that copies every line it reads to its stderr (kept with the game) and answers the first option
ECHO_BOT = (
    "import json, sys\n"
    "for line in sys.stdin:\n"
    "    sys.stderr.write('GOT ' + line); sys.stderr.flush()\n"
    "    msg = json.loads(line)\n"
    "    if msg['type'] == 'hello':\n"
    "        print(json.dumps({'type': 'hello', 'protocol': 'tourney-bot', 'version': '1.0',\n"
    "                          'name': 'echo'}), flush=True)\n"
    "    elif msg['type'] == 'request':\n"
    "        print(json.dumps({'type': 'answer', 'id': msg['id'], 'option': msg['options'][0]['id']}), flush=True)\n"
    "    elif msg['type'] == 'goodbye':\n"
    "        break\n"
)


def echo_event(tmp_path, name="secret", extra=""):
    config = tmp_path / f"{name}.toml"
    config.write_text(f"""
[event]
name = "{name}"
format = "match"
seed = 5
games = 3
{extra}

[[entrants]]
name = "echo"
command = ["{{python}}", "-c", {json.dumps(ECHO_BOT)}]

[[entrants]]
name = "random"
builtin = "random"
""")
    return config


def stored(db, name):
    con = sqlite3.connect(db)
    secret = con.execute("select deal_secret from events where name = ?", [name]).fetchone()[0]
    games = con.execute("select s.idx, g.idx, g.seed, l.stderr from games g join series s on s.id = "
                        "g.series_id join events e on e.id = g.event_id join game_logs l on "
                        "l.game_id = g.id where e.name = ? order by s.idx, g.idx", [name]).fetchall()
    con.close()
    return secret, games


def test_each_event_draws_a_secret_kept_in_the_database_and_never_sent(tmp_path):
    db = tmp_path / "t.db"
    config = echo_event(tmp_path)
    assert CliRunner().invoke(app, ["run", str(config), "--db", str(db), "-q"]).exit_code == 0
    secret, games = stored(db, "secret")
    assert len(secret) == 32 and int(secret, 16) >= 0  # 128 bits, as hex
    assert len(games) >= 2
    for sidx, gidx, seed, _ in games:
        assert seed == seeding.game_seed(5, sidx, gidx, secret) != seeding.game_seed(5, sidx, gidx)
    received = "".join(json.loads(logs).get("0", "") for *_, logs in games)
    hello = json.loads(next(x for x in received.splitlines() if '"hello"' in x).removeprefix("GOT "))
    # the bot's own seed is keyed too: brute-forcing a small event seed from it finds nothing
    assert hello["seed"] == seeding.entrant_seed(5, 0, 0, secret)
    assert all(hello["seed"] != seeding.entrant_seed(s, 0, 0) for s in range(10_000))
    assert secret not in received and secret not in config.read_text()
    assert not any(secret in v for v in os.environ.values())
    # another event, another secret
    assert CliRunner().invoke(app, ["run", str(echo_event(tmp_path, "other")), "--db", str(db),
                                    "-q"]).exit_code == 0
    assert stored(db, "other")[0] not in (None, secret)


def test_public_seeds_follow_the_documented_formula(tmp_path):
    db = tmp_path / "t.db"
    config = echo_event(tmp_path, extra="public_seeds = true")
    assert CliRunner().invoke(app, ["run", str(config), "--db", str(db), "-q"]).exit_code == 0
    secret, games = stored(db, "secret")
    assert secret is None
    assert all(seed == seeding.game_seed(5, sidx, gidx) for sidx, gidx, seed, _ in games)


def test_restart_keeps_the_secret_and_a_resumed_run_deals_the_same_games(tmp_path):
    from tourney.config import load_config
    from tourney.events import runner
    from tourney.results import store

    path = tmp_path / "rr.toml"
    path.write_text("""
[event]
name = "rr"
format = "round-robin"
seed = 11
games = 3
""" + GREEDY_AND_RANDOM + """
[[entrants]]
name = "random2"
builtin = "random"
""")
    db_path = tmp_path / "t.db"
    assert CliRunner().invoke(app, ["run", str(path), "--db", str(db_path), "-q"]).exit_code == 0
    first, secret = snapshot(db_path), stored(db_path, "rr")[0]
    # --restart: the stored results go, the secret stays, and the same games are dealt again
    again = CliRunner().invoke(app, ["run", str(path), "--db", str(db_path), "-q", "--restart"])
    assert again.exit_code == 0
    assert stored(db_path, "rr")[0] == secret and snapshot(db_path) == first
    # a run interrupted after one series and resumed deals exactly what the whole run dealt
    cfg, db = load_config(path), store.open_db(str(db_path))
    event_id, _ = runner.prepare_event(db, cfg, "test", restart=True)
    runner.Runner(db, event_id, runner.pending_tasks(db, event_id, cfg)[:1], 1).run()
    runner.Runner(db, event_id, runner.pending_tasks(db, event_id, cfg), 1).run()
    store.finish_event(db, event_id)
    db.conn.close()
    assert stored(db_path, "rr")[0] == secret and snapshot(db_path) == first

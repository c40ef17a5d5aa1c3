"""Sealed tables: no channel between two bots of one event, a limit on every resource.

Two bots at one table try to pass a hand from one to the other while both run, through each
route the kernel offers them (tests/bots/colluder.py): advisory file locks (flock, and fcntl's
record locks) on files both sandboxes can read, change notifications (inotify) on those files,
and the kernel's key store. In the sandbox the receiving bot's calls fail (EPERM), and its guess
is measured against the sender's real hand: no better than a blind guess. The same pair without
the sandbox passes the whole hand, and so does each route the filter alone closes with the
filter switched off, so these tests can fail.

Then a fork bomb, a full scratch disk and an exhausted file table, each contained (the other
seat plays on, its own resources intact) and recorded (the fault names the limit, in the game's
record and in ``tourney check``); and a referee killed with SIGKILL, after which nothing of its
bot is left, neither a process nor a file.

The sandbox needs Linux and bubblewrap; the README's test command installs both, so on Linux
these tests fail rather than skip when either is missing. Every wait is for an event (a line on
a pipe, a file, a process gone), with a deadline far above what a loaded machine needs.
"""

from __future__ import annotations

import errno
import json
import math
import os
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

import pytest
from helpers import processes_with, reap_adopted
from typer.testing import CliRunner

import tourney.commands  # noqa: F401  (registers the commands)
from tourney.app import app
from tourney.bots import sandbox, syscalls
from tourney.bots.entrants import EntrantSpec, Limits, open_entrant
from tourney.bots.referee import play_game
from tourney.bots.sandbox import Policy

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "tests" / "bots"
LIMITS = Limits(decision_timeout=20.0, startup_timeout=20.0, grace=1.0)
ROUTES = ("flock", "fcntl", "inotify", "keyctl")
GAMES = 4

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="bot sandboxes need Linux namespaces")


def alive(marker: str) -> list[int]:
    """The processes, not yet ended, whose command line holds ``marker``."""
    return processes_with(marker, also=marker, zombies=False)


def test_this_machine_can_seal_a_sandbox():
    assert syscalls.unavailable() is None  # the test command installs libseccomp and pyseccomp
    assert sandbox.problem() is None


# --- the routes: two bots try to pass a hand -------------------------------------------------------


def pass_hands(route: str, mode: str) -> list[dict]:
    """Play GAMES three-player games, the sender in seat 0, the receiver in seat 1, a built-in bot
    in seat 2: for each game, the sender's hand, the receiver's guess and the errors it met."""
    tag = "seal-" + uuid.uuid4().hex[:12]

    def colluder(role: str) -> EntrantSpec:
        return EntrantSpec(role, command=("{python}", str(BOTS / "colluder.py"), route, role, "0", tag),
                           limits=LIMITS, sandbox=Policy(mode))

    games = []
    with open_entrant(colluder("send"), 1) as sender, open_entrant(colluder("receive"), 2) as receiver, \
            open_entrant(EntrantSpec("r", builtin="random"), 3) as other:
        for g in range(GAMES):
            record = play_game([sender, receiver, other], rule_set="crazier-eights", seed=100 + g)
            assert record.faults == {}, record.fault_details
            said = {seat: dict(line.split(" ", 1) for line in record.stderr.get(seat, "").splitlines()
                               if line.split(" ", 1)[0] in ("HAND", "GUESS", "CHANNEL"))
                    for seat in (0, 1)}
            guess = json.loads(said[1]["GUESS"])
            games.append({"hand": set(json.loads(said[0]["HAND"])), "guess": set(guess["cards"]),
                          "pool": guess["pool"], "errors": json.loads(said[1]["CHANNEL"])["errors"]})
    return games


def accuracy(games: list[dict]) -> tuple[float, float, float]:
    """(the share of the sender's cards the receiver named, the share a blind guess of the same
    size names on average, the standard deviation of that share over these games): a blind
    guess of k cards out of a pool of n holding the h cards of the hand names h*k/n of them on
    average (the hypergeometric mean), with variance h*k/n * (1-k/n) * (n-h)/(n-1)."""
    cards = sum(len(g["hand"]) for g in games)
    hits = sum(len(g["hand"] & g["guess"]) for g in games)
    mean = var = 0.0
    for g in games:
        h, k, n = len(g["hand"]), len(g["guess"]), g["pool"] or 1
        mean += h * k / n
        var += h * k / n * (1 - k / n) * (n - h) / max(n - 1, 1)
    return hits / cards, mean / cards, math.sqrt(var) / cards


@pytest.mark.parametrize("route", ROUTES)
def test_in_the_sandbox_no_route_passes_a_hand(route):
    games = pass_hands(route, "on")
    # the channel cannot even be opened: every call the receiver made to read it was refused
    assert all(g["errors"] == ["EPERM"] for g in games), [g["errors"] for g in games]
    assert all(g["pool"] > 0 for g in games)  # so every guess was a blind one
    measured, chance, spread = accuracy(games)
    print(f"{route}: the receiver named {measured:.2f} of the sender's cards; a blind guess names "
          f"{chance:.2f} on average (sd {spread:.2f})")
    assert measured <= chance + 5 * spread, (measured, chance, spread)
    assert measured < 0.6  # and far from the whole hand, which the route passes unsealed


@pytest.mark.parametrize("route", ROUTES)
def test_without_the_sandbox_every_route_passes_the_whole_hand(route):
    games = pass_hands(route, "off")
    assert all(g["errors"] == [] for g in games)
    assert all(g["hand"] <= g["guess"] for g in games), games  # read, card for card
    assert accuracy(games)[0] == 1.0


@pytest.fixture
def no_filter(monkeypatch):
    """The sandbox without its system-call filter: bwrap is given one that allows everything."""
    import pyseccomp

    def allow_all() -> bytes:
        f = pyseccomp.SyscallFilter(pyseccomp.ALLOW)
        with tempfile.TemporaryFile() as out:
            f.export_bpf(out)
            out.seek(0)
            return out.read()

    monkeypatch.setattr(syscalls, "program", allow_all)


@pytest.mark.parametrize("route", ["flock", "fcntl", "inotify"])
def test_the_filter_is_what_closes_the_file_routes(no_filter, route):
    games = pass_hands(route, "on")
    assert all(g["hand"] <= g["guess"] for g in games)  # sandboxed, but unfiltered: it gets through


def test_the_key_store_is_closed_twice_by_the_filter_and_by_a_user_of_its_own(no_filter):
    # unfiltered, keyctl works, but the two bots have no keyring in common: each has a uid of its
    # own (as root) or a user namespace of its own, so the receiver finds no key of the sender's
    games = pass_hands("keyctl", "on")
    assert all(g["errors"] == [] and g["pool"] > 0 for g in games)
    measured, chance, spread = accuracy(games)
    assert measured <= chance + 5 * spread and measured < 0.6


def test_the_filter_refuses_with_an_error_and_reads_fcntl_as_the_kernel_does(tmp_path):
    # a lock command with high bits set in its int argument is still a lock command to the
    # kernel, so to the filter; and a call that is not denied still works
    script = tmp_path / "probe.py"
    script.write_text(
        "import ctypes, fcntl, json, os\n"
        "libc = ctypes.CDLL(None, use_errno=True)\n"
        "fd = os.open(os.__file__, os.O_RDONLY)\n"
        "def call(*args):\n"
        "    r = libc.syscall(*args)\n"
        "    return r if r >= 0 else -ctypes.get_errno()\n"
        "print(json.dumps({'fcntl_high_bits': call(72, fd, (1 << 32) | fcntl.F_SETLK, 0),\n"
        "                  'flock': call(73, fd, fcntl.LOCK_SH), 'personality': call(135, 0xffffffff),\n"
        "                  'unshare_user': call(272, 0x10000000), 'clone3': call(435, 0, 0),\n"
        "                  'getpid': call(39), 'dup': call(32, fd) > 0}))\n")
    script.chmod(0o644)
    tmp_path.chmod(0o755)
    launch = sandbox.prepare([sys.executable, str(script)], str(tmp_path), {"PATH": os.defpath},
                             Policy("on"))
    try:
        proc = subprocess.Popen(launch.argv, cwd=launch.cwd, env=launch.env, pass_fds=launch.pass_fds,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        launch.started(proc.pid)
        out, err = proc.communicate(timeout=60)
    finally:
        launch.cleanup()
    assert launch.scratch is None  # no folder of the bot's on the host's disk
    assert json.loads(out) == {"fcntl_high_bits": -errno.EPERM, "flock": -errno.EPERM,
                               "personality": -errno.EPERM, "unshare_user": -errno.EPERM,
                               "clone3": -errno.ENOSYS, "getpid": 2, "dup": True}, err


# --- bots in many languages still pass tourney check under the filter ------------------------------


def skeleton(tmp_path: Path, lang: str) -> Path:
    folder = tmp_path / f"sk-{lang}"
    result = CliRunner().invoke(app, ["new-bot", "sk", "--lang", lang, "--dir", str(folder)])
    assert result.exit_code == 0, result.output
    if lang == "c":
        build = subprocess.run(["make"], cwd=folder, capture_output=True, text=True, timeout=120)
        assert build.returncode == 0, build.stderr
    return folder


LANGUAGES = {
    "python example": lambda t: (None, ["{python}", str(ROOT / "examples/bots/random_bot.py")]),
    "python smart example": lambda t: (None, ["{python}", str(ROOT / "examples/bots/smart_bot.py")]),
    "node example": lambda t: (None, ["node", str(ROOT / "examples/bots/random_bot.js")]),
    "python with numpy": lambda t: (None, ["{python}", str(BOTS / "numpy_bot.py")]),
    "perl, core modules": lambda t: (None, ["perl", str(BOTS / "perl_bot.pl")]),
    "python skeleton": lambda t: (str(skeleton(t, "python")), ["python3", "bot.py"]),
    "node skeleton": lambda t: (str(skeleton(t, "javascript")), ["node", "bot.js"]),
    "c skeleton": lambda t: (str(skeleton(t, "c")), ["./bot"]),
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_bots_in_every_language_pass_check_under_the_filter(tmp_path, language):
    tmp_path.chmod(0o755)  # as root the bot is not root: its folder must be readable by others
    cwd, command = LANGUAGES[language](tmp_path)
    args = ["check", "--sandbox", "on", "--games", "2", "--decision-timeout", "20",
            "--startup-timeout", "30", *(["--cwd", cwd] if cwd else []), "--", *command]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    assert "ok   sandbox: the bot runs isolated" in result.output


# --- resources: each limit reached, contained and recorded -----------------------------------------

GREEDY = {"fork": "limits.max_processes", "scratch": "limits.scratch_mb", "files": "limits.max_open_files"}


def greedy(mode: str, marker: str = "-") -> EntrantSpec:
    return EntrantSpec(mode, command=("{python}", str(BOTS / "greedy_bot.py"), mode, marker),
                       limits=Limits(decision_timeout=60.0, startup_timeout=20.0, grace=0.5),
                       sandbox=Policy("on"))


@pytest.mark.parametrize("mode", GREEDY)
def test_a_greedy_bot_is_contained_and_its_limit_recorded(mode):
    marker = "greedy-" + uuid.uuid4().hex
    neighbour = EntrantSpec("n", command=("{python}", str(BOTS / "greedy_bot.py"), "neighbour", marker),
                            limits=Limits(decision_timeout=20.0, startup_timeout=20.0), sandbox=Policy("on"))
    with open_entrant(greedy(mode, marker), 1) as bot, open_entrant(neighbour, 2) as other, \
            open_entrant(EntrantSpec("r", builtin="random"), 3) as third:
        record = play_game([bot, other, third], rule_set="crazier-eights", seed=7)
        # the greedy bot faulted, and its fault says which limit it had run into
        assert set(record.faults) == {0}, record.fault_details
        assert GREEDY[mode] in record.fault_details[0], record.fault_details
        # the others played the game out: the neighbour forked, opened and wrote at every turn
        assert record.result is not None and record.decisions > 3
    assert alive(marker) == []  # the bomb's processes ended with its sandbox
    reap_adopted()


@pytest.mark.parametrize("mode", GREEDY)
def test_check_names_the_limit_a_bot_ran_into(mode):
    result = CliRunner().invoke(app, ["check", "--sandbox", "on", "--games", "1", "--decision-timeout", "60",
                                      "--startup-timeout", "20", "--", "{python}", str(BOTS / "greedy_bot.py"),
                                      mode, "-"])
    assert result.exit_code == 3, result.output
    fail = next(line for line in result.output.splitlines() if line.startswith("FAIL game 1"))
    assert "it had used up its" in fail and GREEDY[mode] in fail, result.output
    assert "It had reached one of its limits" in result.output  # and what to do about it
    reap_adopted()


# --- a referee killed outright leaves nothing ------------------------------------------------------

REFEREE = """
import sys
from tourney.bots.entrants import EntrantSpec, Limits, open_entrant
from tourney.bots.referee import play_game
from tourney.bots.sandbox import Policy

spec = EntrantSpec("b", command=("{python}", sys.argv[1], "hold", sys.argv[2]), sandbox=Policy("on"),
                   limits=Limits(decision_timeout=600, startup_timeout=60))
with open_entrant(spec, 1) as bot, open_entrant(EntrantSpec("r", builtin="random"), 2) as other:
    bot.start()
    print(bot.pid, flush=True)
    play_game([bot, other], seed=1)
"""


def ended(pid: int) -> bool:
    """Process ``pid`` has ended: gone, or a zombie (ours to reap, as a subreaper)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def test_a_referee_killed_with_sigkill_leaves_no_process_and_no_file(tmp_path):
    marker = "held-" + uuid.uuid4().hex
    referee = subprocess.Popen([sys.executable, "-c", REFEREE, str(BOTS / "greedy_bot.py"), marker],
                               env={**os.environ, "PYTHONPATH": str(ROOT)}, start_new_session=True,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        assert referee.stdout is not None
        bwrap = int(referee.stdout.readline())  # the bot is started and has said hello
        deadline = time.monotonic() + 60
        held = []  # the bot's scratch file, seen through its own root
        while time.monotonic() < deadline and not held:
            held = [p for p in alive(marker)
                    if os.path.exists(f"/proc/{p}/root/tmp/{marker}")]
            time.sleep(0.01)
        assert held, "the bot never wrote its scratch file"
        assert not any(marker in name for name in os.listdir(tempfile.gettempdir()))  # not on the host
        os.killpg(referee.pid, signal.SIGKILL)
        referee.wait(timeout=60)
        deadline = time.monotonic() + 30
        while alive(marker) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert alive(marker) == []
        assert ended(bwrap)
    finally:
        for pid in alive(marker):
            os.kill(pid, signal.SIGKILL)
        reap_adopted(wait=1.0)
    # the file the bot wrote is nowhere on the host: its scratch space was a tmpfs of the
    # sandbox's own, gone with its last process
    found = subprocess.run(["find", tempfile.gettempdir(), "-xdev", "-name", marker],
                           capture_output=True, text=True).stdout
    assert found == ""


def test_scratch_space_is_a_bounded_tmpfs_of_the_sandbox():
    argv = sandbox.bwrap_argv(["true"], "/nonexistent-bot", policy=Policy(),
                              resources=sandbox.Resources(processes=9, open_files=33, scratch_bytes=5 << 20))
    options = argv[: argv.index("--")]
    i = options.index("--tmpfs")
    assert options[i - 4: i + 2] == ["--perms", "1777", "--size", str(5 << 20), "--tmpfs", "/tmp"]
    assert "--bind" not in options  # nothing of the host's is writable
    # the limits are set inside, once the bot is alone with its user: after setpriv as root
    assert argv[argv.index("--"):] == ["--", sandbox.PRLIMIT, "--nproc=9", "--nofile=33", "--", "true"]
    as_root = sandbox.bwrap_argv(["true"], "/nonexistent-bot", policy=Policy(), as_root=True,
                                 resources=sandbox.Resources(processes=9, open_files=33))
    rest = as_root[as_root.index("--") + 1:]
    assert rest[3] == sandbox.SETPRIV and rest[-6:] == argv[-6:]


def test_a_bot_in_the_hosts_tmp_sees_its_own_file_not_the_folder():
    with tempfile.NamedTemporaryFile("w", suffix=".py", dir="/tmp") as bot:
        argv = sandbox.bwrap_argv(["python3", bot.name], "/tmp", policy=Policy())
    options = argv[: argv.index("--")]
    binds = [options[i + 2] for i, a in enumerate(options) if a in ("--ro-bind", "--bind")]
    assert bot.name in binds and "/tmp" not in binds  # the host's /tmp stays out of sight
    assert options[options.index("--chdir") + 1] == "/tmp"  # where its scratch space is

"""A sandboxed bot may import tourney.botkit, the encoding and the engine, as from a regular
install, even when tourney is an editable install or a checkout (the sandbox binds the two
packages' folders read-only, and nothing else of the checkout)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tourney.bots import sandbox
from tourney.bots.entrants import EntrantSpec, Limits, open_entrant
from tourney.bots.referee import play_game
from tourney.bots.sandbox import Policy

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.skipif(sandbox.problem() is not None, reason=f"no sandbox here: {sandbox.problem()}")

BOT = '''
import os, sys
sys.dont_write_bytecode = True
import engine
from tourney.botkit import game, run
from tourney.rl.encoding import Encoding

# the checkout's other files stay out of sight: only the two packages are there
sealed = not os.path.exists(ROOT + "/pyproject.toml") and not os.path.exists(ROOT + "/tests")

def choose(view, options):
    Encoding(len(game.cards), game.players).encode(view, game.kind)  # the encoding runs in here
    return options[0]

run(choose, name="importer-sealed" if sealed else "importer-leaky")
'''


def _bot(tmp_path):
    tmp_path.chmod(0o755)  # bots run as nobody when the tests run as root
    path = tmp_path / "bot.py"
    path.write_text(f"ROOT = {str(ROOT)!r}\n" + BOT)
    path.chmod(0o644)
    return path


def test_the_packages_folders_are_bound_where_the_system_dirs_miss_them():
    dirs = sandbox.package_dirs()
    installed = {os.path.realpath(os.path.dirname(m.__file__)) for m in (sandbox, )}
    assert all(os.path.isdir(d) for d in dirs)
    system = sandbox.readable_system_dirs()
    tourney_dir = str(Path(sandbox.__file__).resolve().parent.parent)
    expected = [] if any(tourney_dir.startswith(s + "/") for s in system) else [tourney_dir, str(ROOT / "engine")]
    assert dirs == expected and installed
    argv = sandbox.bwrap_argv(["true"], "/tmp", policy=Policy("on"))
    for d in dirs:
        at = argv.index(d)
        assert argv[at - 1] == "--ro-bind" and argv[at + 1] == d


def test_a_sandboxed_bot_imports_botkit_the_encoding_and_the_engine(tmp_path):
    """The tourney running this test is the checkout's; the bot gets it by PYTHONPATH (a bot's
    environment is otherwise minimal), as an editable install's finder would give it."""
    bot = _bot(tmp_path)
    spec = EntrantSpec("importer", command=("{python}", str(bot)), cwd=str(tmp_path), sandbox=Policy("on"),
                       env={"PYTHONPATH": str(ROOT)}, limits=Limits(decision_timeout=10.0))
    with open_entrant(spec, seed=1) as entrant, open_entrant(EntrantSpec("g", builtin="greedy"), 2) as greedy:
        record = play_game([entrant, greedy], seed=3)
        assert entrant.bot_name == "importer-sealed", entrant.take_stderr()
    assert record.faults == {}


def _installed_from_this_checkout() -> bool:
    """Whether this Python, with no PYTHONPATH and away from the checkout, imports this checkout's
    tourney (as after the README's ``pip install -e``)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-c", "import tourney; print(tourney.__file__)"], cwd="/", env=env,
                          capture_output=True, text=True, timeout=60)
    return done.returncode == 0 and Path(done.stdout.strip()).parent == ROOT / "tourney"


@pytest.mark.skipif(not _installed_from_this_checkout(), reason="tourney is not installed editable from here")
def test_tourney_check_passes_a_bot_importing_tourney_under_the_editable_install(tmp_path):
    """The README's install (pip install -e): no PYTHONPATH for anyone, the sandbox on."""
    bot = _bot(tmp_path)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-m", "tourney", "check", "--games", "1", "--sandbox", "on", "--",
                           "{python}", str(bot)], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "'importer-sealed'" in done.stdout and "ok   sandbox: the bot runs isolated" in done.stdout


def test_a_private_file_inside_a_package_folder_stays_hidden(tmp_path):
    """(A database kept inside the package folder, an odd place: keep_private still covers it.)"""
    dirs = sandbox.package_dirs()
    if not dirs:
        pytest.skip("the packages lie inside the system dirs here")
    secret = os.path.join(dirs[0], "results", "tourney.db")
    argv = sandbox.bwrap_argv(["true"], str(tmp_path), policy=Policy("on"), private=[secret])
    hidden = os.path.dirname(secret)
    assert argv[argv.index(hidden) - 1] == "--tmpfs"

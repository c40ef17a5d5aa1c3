"""A newcomer's first run from a wheel (issue 39, point 7): ``pip install .`` into a fresh venv,
then ``tourney init`` and ``tourney run tourney.toml`` in an empty folder. The starter config
names built-in bots and the bot ``init`` writes beside it, nothing of the checkout."""

from __future__ import annotations

import json
import subprocess

from installed import installed_tourney


def test_init_then_run_works_from_a_wheel_in_an_empty_folder(tmp_path):
    tourney = installed_tourney()
    folder = tmp_path / "empty"
    folder.mkdir()
    folder.chmod(0o755)  # bots run as nobody when the tests run as root

    def run(*argv):
        return subprocess.run(["tourney", *argv], cwd=folder, env=tourney.env(), capture_output=True,
                              text=True, stdin=subprocess.DEVNULL, timeout=300)

    init = run("init")
    assert init.returncode == 0, init.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["my-bot", "tourney.toml"]
    assert "examples/" not in (folder / "tourney.toml").read_text()
    done = run("run", "tourney.toml", "--db", "t.db")
    assert done.returncode == 0, done.stdout + done.stderr
    # every entrant played, the bot init wrote among them, and none of them faulted
    standings = run("standings", "my-event", "--db", "t.db", "--json")
    assert standings.returncode == 0, standings.stderr
    rows = {row["entrant"]: row for row in json.loads(standings.stdout)["standings"]}
    assert sorted(rows) == ["greedy", "my-bot", "random"]
    assert all(row["games"] > 0 and row["fault_count"] == 0 for row in rows.values()), rows
    # a second init refuses, and writes nothing
    (folder / "tourney.toml").unlink()
    again = run("init")
    assert again.returncode == 2 and "my-bot" in again.stderr
    assert not (folder / "tourney.toml").exists()

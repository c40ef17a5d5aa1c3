"""Several secretaries at once: real ``tourney club`` processes started together, many rounds.

Each worker process imports tourney once, then for every round waits at a file barrier (every
worker writes ``ready-ROUND-WORKER`` and waits until all have) and runs one ``tourney club``
command in-process, as ``python -m tourney`` would. So the commands of a round really start
together, and many rounds fit in a few seconds.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from tourney.club.league import League
from tourney.results.store import open_db

WORKER = r'''
import json, os, sys, time
from pathlib import Path

from tourney.cli import main

barrier, me, workers = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
rounds = json.loads(sys.argv[4])          # one argument list per round
codes = []
for k, args in enumerate(rounds):
    (barrier / f"ready-{k}-{me}").touch()
    while sum(1 for w in range(workers) if (barrier / f"ready-{k}-{w}").exists()) < workers:
        time.sleep(0.0005)
    sys.argv = ["tourney", *args]
    try:
        main()
        codes.append(0)
    except SystemExit as exc:
        codes.append(exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1))
    except BaseException:
        import traceback
        traceback.print_exc()
        codes.append(1)
    sys.stdout.flush()
    sys.stderr.flush()
print("CODES " + json.dumps(codes), file=sys.stderr)
'''


def run_workers(tmp_path: Path, plans: list[list[list[str]]]) -> list[tuple[list[int], str]]:
    """Start one process per plan (a list of command lines, one per round) and wait for all:
    ``[(exit codes by round, everything the process printed)]``."""
    barrier = tmp_path / "barrier"
    barrier.mkdir(exist_ok=True)
    script = tmp_path / "worker.py"
    script.write_text(WORKER)
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1]), "TOURNEY_USER": "sec"}
    procs = [subprocess.Popen([sys.executable, str(script), str(barrier), str(i), str(len(plans)), json.dumps(plan)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
             for i, plan in enumerate(plans)]
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=120)
        assert p.returncode == 0, stderr
        codes_line = [line for line in stderr.splitlines() if line.startswith("CODES ")][-1]
        out.append((json.loads(codes_line[6:]), stdout + stderr))
    return out


def test_simultaneous_adds_store_every_game_exactly_once(tmp_path):
    db = str(tmp_path / "club.db")
    League.create(open_db(db), "thu", ["Ann", "Bea"], seed=1, by="tester")
    workers, rounds = 3, 8
    plans = [[["club", "add", "thu", "--cards", "Ann=0,Bea=3", "--note", f"w{w}r{k}", "--db", db]
              for k in range(rounds)] for w in range(workers)]
    results = run_workers(tmp_path, plans)
    for codes, output in results:
        assert codes == [0] * rounds, output
        assert "Traceback" not in output and "IntegrityError" not in output
    conn = sqlite3.connect(db)
    notes = [n for (n,) in conn.execute("SELECT note FROM club_versions ORDER BY game_number")]
    numbers = [n for (n,) in conn.execute("SELECT number FROM club_games ORDER BY number")]
    assert sorted(notes) == sorted(f"w{w}r{k}" for w in range(workers) for k in range(rounds))
    assert numbers == list(range(1, workers * rounds + 1))


def test_simultaneous_new_on_fresh_files(tmp_path):
    """Even rounds: every worker creates the same league on a fresh file (one succeeds, the others
    are told it exists); odd rounds: each creates its own league on a fresh file (all succeed).
    Every round also races the migrations of the fresh file."""
    workers, rounds = 3, 10

    def command(w: int, k: int) -> list[str]:
        name = "thu" if k % 2 == 0 else f"league{w}"
        return ["club", "new", name, "--players", "Ann,Bea", "--db", str(tmp_path / f"r{k}.db")]

    results = run_workers(tmp_path, [[command(w, k) for k in range(rounds)] for w in range(workers)])
    outputs = [output for _, output in results]
    for output in outputs:
        assert "Traceback" not in output and "locked" not in output, output
        refusals = [line for line in output.splitlines() if line.startswith("error:")]
        assert all(line == "error: a club league named 'thu' already exists" for line in refusals), output
    for k in range(rounds):
        codes = sorted(codes[k] for codes, _ in results)
        names = [n for (n,) in sqlite3.connect(tmp_path / f"r{k}.db").execute(
            "SELECT name FROM club_leagues ORDER BY name")]
        if k % 2 == 0:
            assert codes == [0] + [2] * (workers - 1), outputs
            assert names == ["thu"]
        else:
            assert codes == [0] * workers, outputs
            assert names == [f"league{w}" for w in range(workers)]

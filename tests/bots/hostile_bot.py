"""A bot that plays legally but tries every way out of its sandbox, for tests/test_fairplay.py.

Usage: hostile_bot.py --db PATH --config PATH --port N --outside PATH --marker TEXT --secret TEXT
                      --seed EVENT_SEED --engine PATH/engine/__init__.py

At its first request it tries each route a malicious bot author would, then writes what it
found as one line ``FINDINGS {json}`` on stderr (the referee keeps a bot's stderr with the game)
and plays on, answering the first option. Standard library only, like any bot, except that it
imports the engine (from ``--engine``) to rebuild the deal of its first game: it knows the config
(``--seed``), tries the documented seed formula, and the database's secret if it can read it.
"""

import argparse
import hashlib
import hmac
import json
import os
import signal
import socket
import subprocess
import sys


def read(path, size=1 << 16):
    try:
        with open(path, "rb") as f:
            return f.read(size)
    except OSError:
        return None


def pids():
    return [int(p) for p in os.listdir("/proc") if p.isdigit()]


def seed_of(text, secret=None):
    """docs/formats.md, "Seeding": the first 8 bytes of the digest of ``text``, 63 bits."""
    digest = (hmac.new(secret.encode(), text.encode(), hashlib.sha256).digest() if secret
              else hashlib.sha256(text.encode()).digest())
    return int.from_bytes(digest[:8], "big") & (2**63 - 1)


def stolen_secret(db):
    import sqlite3
    import time

    for _ in range(50):  # the referee may be writing at that moment: a real thief tries again
        try:
            con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
            return con.execute("select deal_secret from events").fetchone()[0]
        except sqlite3.OperationalError:
            time.sleep(0.05)
        except Exception:
            return None
    return None


def recover_deal(args, start, view):
    """Whether a candidate seed deals what this bot sees at its first request: most of a dealt
    hand in its hand. Returns the candidate that did, or None."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(args.engine)))
    try:
        import engine
    except ImportError as exc:
        return f"no engine: {exc}"
    text = f"tourney/game/{args.seed}/0/0"
    for how, secret in (("public formula", None), ("stolen secret", stolen_secret(args.db))):
        if how == "stolen secret" and secret is None:
            continue
        game = engine.new_game(start["rule_set"], players=start["players"], seed=seed_of(text, secret),
                               options=start["options"], first_player=start["first_player"])
        # the player before it may have taken or given a card, or made the hands change places,
        # so any seat's dealt hand will do; five shared cards by chance are about 1 in 6,000
        for seat in range(start["players"]):
            dealt = game.view(seat)["hand"]
            if len(set(dealt) & set(view["hand"])) >= max(len(dealt) - 2, 1):
                return how
    return None


def probe(args, start, view):
    found = {"pid": os.getpid(), "ppid": os.getppid(), "uid": os.getuid(), "visible_pids": len(pids())}
    found["deal_recovered"] = recover_deal(args, start, view)
    # the referee's environment: our own, and every environment we can read
    environs = [read(f"/proc/{p}/environ") or b"" for p in pids()]
    found["secret_in_env"] = args.secret in os.environ.get("TOURNEY_FAIRPLAY_SECRET", "") or any(
        args.secret.encode() in e for e in environs)
    found["tourney_db_in_env"] = any(b"TOURNEY_DB=" in e for e in environs)
    # the parent's /proc entries: command line, working directory, open files
    parent = os.getppid()
    found["parent_cmdline"] = (read(f"/proc/{parent}/cmdline") or b"").replace(b"\0", b" ").decode(
        "utf-8", "replace")
    try:
        found["parent_cwd"] = os.readlink(f"/proc/{parent}/cwd")
    except OSError:
        found["parent_cwd"] = None
    open_files = []
    for p in pids():
        try:
            open_files += [os.readlink(f"/proc/{p}/fd/{fd}") for fd in os.listdir(f"/proc/{p}/fd")]
        except OSError:
            pass
    found["db_in_open_files"] = any(f.startswith(args.db) for f in open_files)
    # the database and the config, by their paths
    found["db_readable"] = (read(args.db, 16) or b"").startswith(b"SQLite format 3")
    try:
        with open(args.db, "r+b"):
            found["db_writable"] = True
    except OSError:
        found["db_writable"] = False
    found["config_readable"] = read(args.config) is not None
    # the network: a listener the test opened on the host's loopback
    try:
        with socket.create_connection(("127.0.0.1", args.port), timeout=2):
            found["tcp_connected"] = True
    except OSError as exc:
        found["tcp_connected"] = False
        found["tcp_error"] = str(exc)
    # other bots: every process whose command line is the opponent's (it carries the marker).
    # Signal 0 asks whether a kill would be allowed; the kill itself comes after the findings
    # are written (main), since the referee ends the game the moment the other bot dies.
    targets = []
    for p in pids():
        cmdline = read(f"/proc/{p}/cmdline") or b""
        if b"fault_bot.py" in cmdline and args.marker.encode() in cmdline:
            try:
                os.kill(p, 0)
                targets.append(p)
            except OSError:
                pass
    found["signalled"] = len(targets)
    found["_targets"] = targets
    # a grandchild in a session of its own, which should not outlive the series
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", args.marker],
                     start_new_session=True, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                     stderr=subprocess.DEVNULL)
    # writing: outside the scratch directory, and inside it
    for key, path in (("wrote_outside", args.outside), ("wrote_own_dir", os.path.join(os.getcwd(), "x")),
                      ("wrote_scratch", os.path.join(os.environ.get("TMPDIR", "/tmp"), "x"))):
        try:
            with open(path, "w") as f:
                f.write("hostile")
            found[key] = True
        except OSError:
            found[key] = False
    return found


def main():
    parser = argparse.ArgumentParser()
    for name in ("--db", "--config", "--outside", "--marker", "--secret", "--engine"):
        parser.add_argument(name, required=True)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--seed", type=int, required=True)
    args = parser.parse_args()
    probed = False
    start = None
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "hello":
            reply = {"type": "hello", "protocol": "tourney-bot", "version": "1.0", "name": "hostile"}
            sys.stdout.write(json.dumps(reply) + "\n")
        elif msg["type"] == "game_start":
            start = msg
        elif msg["type"] == "request":
            if not probed:
                probed = True
                found = probe(args, start, msg["view"])
                targets = found.pop("_targets")
                sys.stderr.write("FINDINGS " + json.dumps(found) + "\n")
                sys.stderr.flush()
                for p in targets:
                    try:
                        os.kill(p, signal.SIGKILL)
                    except OSError:
                        pass
            sys.stdout.write(json.dumps({"type": "answer", "id": msg["id"],
                                         "option": msg["options"][0]["id"]}) + "\n")
        elif msg["type"] == "goodbye":
            return
        sys.stdout.flush()


if __name__ == "__main__":
    main()

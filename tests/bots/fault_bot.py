"""A bot that misbehaves on purpose, for the referee's tests.

Usage: fault_bot.py MODE [N [SECONDS]]

It plays like a random bot (first legal option) until its N-th decision request (default 2),
then misbehaves according to MODE:

  crash            exits with status 3 after a message on stderr
  hang             never answers (sleeps)
  garbage          prints a line that is not JSON
  not_object       prints a JSON line that is not an object with a "type"
  illegal          answers an option that was not offered
  wrong_id         answers with another request id
  giant_line       prints a 3 MiB line
  stderr_flood     writes 2 MiB to stderr on every request, but plays legally
  slow_start       sleeps 30 s before its hello
  exit_after_hello exits right after the handshake
  bad_version      says it speaks protocol version 2.0
  no_hello         answers the hello with an answer message
  spawn_child      starts a child process that sleeps, then plays legally
  ignore_goodbye   plays legally but ignores goodbye, stdin EOF and SIGTERM
  hog              allocates and touches 512 MiB, then plays legally (the memory limit's test)
  slow             sleeps SECONDS (default 1) before every answer, and answers legally
  orphan_stdout    starts a sleeping child that keeps its stdout open, then exits at request N
  version=V        says it speaks protocol version V (e.g. version=1.0.3), then plays legally
  leave_after      answers request N ("end" when offered, ending its turn), then exits (status 0)
                   without waiting for more; SECONDS given: that long after its answer
  close_stdin_after answers request N, then closes its stdin and sleeps
  leave_after_game plays legally, and exits (status 0) as soon as it reads a game_end
  legal            plays legally (the control)
"""

import json
import os
import signal
import subprocess
import sys
import time

MODE = sys.argv[1]
AT = int(sys.argv[2]) if len(sys.argv) > 2 else 2
SECONDS = float(sys.argv[3]) if MODE in ("slow", "leave_after") and len(sys.argv) > 3 else 1.0  # else: a marker


def send(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def sleep_forever():
    while True:
        time.sleep(1000)


def main():
    if MODE == "slow_start":
        time.sleep(30)
    if MODE == "ignore_goodbye":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if MODE in ("spawn_child", "orphan_stdout"):
        subprocess.Popen([sys.executable, "-c", "import time; time.sleep(1000)"])
    requests = 0
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg["type"]
        if kind == "hello":
            if MODE == "no_hello":
                send({"type": "answer", "id": 0, "option": "x"})
                continue
            version = "2.0" if MODE == "bad_version" else "1.0"
            if MODE.startswith("version="):
                version = MODE.split("=", 1)[1]
            send({"type": "hello", "protocol": "tourney-bot", "version": version, "name": MODE})
            if MODE == "exit_after_hello":
                sys.exit(0)
        elif kind == "request":
            requests += 1
            if MODE == "stderr_flood":
                sys.stderr.write(("x" * 1023 + "\n") * 2048)
                sys.stderr.flush()
            if requests >= AT:
                if MODE == "orphan_stdout":
                    os._exit(0)
                if MODE == "crash":
                    sys.stderr.write("fault_bot: crashing on purpose\n")
                    sys.stderr.flush()
                    os._exit(3)
                if MODE == "hang":
                    sleep_forever()
                if MODE == "hog" and requests == AT:
                    hog = bytearray(512 << 20)  # zero-filled: the pages are really touched
                    sys.stderr.write(f"fault_bot: holding {len(hog) >> 20} MiB\n")
                    sys.stderr.flush()
                if MODE == "garbage":
                    sys.stdout.write("this is not json\n")
                    sys.stdout.flush()
                    continue
                if MODE == "not_object":
                    send([1, 2, 3])
                    continue
                if MODE == "illegal":
                    send({"type": "answer", "id": msg["id"], "option": "no-such-option"})
                    continue
                if MODE == "wrong_id":
                    send({"type": "answer", "id": msg["id"] + 1000, "option": msg["options"][0]["id"]})
                    continue
                if MODE == "giant_line":
                    sys.stdout.write("x" * (3 << 20) + "\n")
                    sys.stdout.flush()
                    continue
                if MODE == "slow":
                    time.sleep(SECONDS)
            if requests == AT and MODE == "leave_after":
                ids = [o["id"] for o in msg["options"]]
                send({"type": "answer", "id": msg["id"], "option": "end" if "end" in ids else ids[0]})
                if len(sys.argv) > 3:
                    time.sleep(SECONDS)
                os._exit(0)
            send({"type": "answer", "id": msg["id"], "option": msg["options"][0]["id"]})
            if requests == AT and MODE == "close_stdin_after":
                os.close(0)
                sleep_forever()
        elif kind == "game_end" and MODE == "leave_after_game":
            os._exit(0)
        elif kind == "goodbye":
            if MODE == "ignore_goodbye":
                sleep_forever()
            return
    if MODE == "ignore_goodbye":
        sleep_forever()


if __name__ == "__main__":
    main()

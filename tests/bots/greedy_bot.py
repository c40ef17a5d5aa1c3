"""A bot that takes more than its share of one resource at its first request (tests/test_seal.py).

    greedy_bot.py fork|scratch|files|neighbour|hold MARKER

- ``fork``: a fork bomb: every process forks until it cannot, then waits; the first goes on
  trying and never answers;
- ``scratch``: writes to its scratch space /tmp until the disk is full, and dies of it;
- ``files``: opens files until it cannot, then goes on trying and never answers;
- ``neighbour``: plays fairly, and at every request proves its own resources are intact: it
  starts a process, opens a file, writes a MiB to /tmp;
- ``hold``: writes a file named MARKER into /tmp, says so on stderr and never answers (the
  referee is killed meanwhile).

Every mode plays the first option offered when it answers.
"""

import json
import os
import sys
import time

MODE, MARKER = sys.argv[1], sys.argv[2]


def fork_bomb():
    while True:
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            continue  # the child forks on too
    while True:  # at the limit: try again now and then, as a bomb does
        time.sleep(0.05)
        try:
            if os.fork() == 0:
                os._exit(0)
        except OSError:
            pass


def fill_scratch():
    with open("/tmp/fill", "wb") as f:
        chunk = b"x" * (1 << 20)
        while True:
            f.write(chunk)
            f.flush()


def open_files():
    held = []
    while True:
        try:
            held.append(os.open(__file__, os.O_RDONLY))
        except OSError:
            time.sleep(0.05)


def neighbour():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)
    with open(__file__, "rb"), open("/tmp/mine", "wb") as f:
        f.write(b"y" * (1 << 20))
    os.remove("/tmp/mine")


def hold():
    with open(os.path.join("/tmp", MARKER), "w") as f:
        f.write("a bot's scratch file")
    print("HOLDING", flush=True, file=sys.stderr)
    while True:
        time.sleep(3600)


ACTIONS = {"fork": fork_bomb, "scratch": fill_scratch, "files": open_files, "neighbour": neighbour,
           "hold": hold}


def main():
    for line in sys.stdin:
        msg = json.loads(line)
        if msg["type"] == "hello":
            print(json.dumps({"type": "hello", "protocol": "tourney-bot", "version": "1.0",
                              "name": f"greedy-{MODE}"}), flush=True)
        elif msg["type"] == "request":
            ACTIONS[MODE]()
            option = msg["options"][0]
            print(json.dumps({"type": "answer", "id": msg["id"], "option": option["id"]}), flush=True)
        elif msg["type"] == "goodbye":
            return


if __name__ == "__main__":
    main()

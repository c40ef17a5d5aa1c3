"""A bot that takes more than its share of one resource at its first request (tests/test_seal.py).

    greedy_bot.py fork|scratch|files|neighbour|hold MARKER

- ``fork``: a fork bomb: every process forks until it cannot, then waits; the first, once it
  cannot, answers with a line that is not JSON (so it faults at once, the bomb still in place);
- ``scratch``: writes to its scratch space /tmp until the disk is full, and dies of it;
- ``files``: opens files until it cannot, then answers with a line that is not JSON;
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
    first = os.getpid()
    while True:
        try:
            os.fork()  # parent and child fork on
        except OSError:
            break
    if os.getpid() != first:
        while True:
            time.sleep(3600)
    print("the bomb is in place", flush=True)  # the first process: at its limit, it faults


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
            break
    print("no more files", flush=True)  # at its limit, holding them all, it faults


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
            if MODE in ("fork", "files"):
                sys.stdin.readline()  # faulted: waits to be ended
            option = msg["options"][0]
            print(json.dumps({"type": "answer", "id": msg["id"], "option": option["id"]}), flush=True)
        elif msg["type"] == "goodbye":
            return


if __name__ == "__main__":
    main()

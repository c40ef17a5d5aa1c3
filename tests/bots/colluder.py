"""Half of a colluding pair: two bots at one table that try to pass a hand from one to the other
through the kernel, while both run, as a hostile bot author would (tests/test_seal.py).

    colluder.py ROUTE send|receive SENDER_SEAT TAG

ROUTE is ``flock``, ``fcntl`` (record locks), ``inotify`` or ``keyctl``. Card number i of the
game (in the order of game_start's ``cards``) is the i-th ``.py`` file of the Python standard
library, a folder both sandboxes see read-only (for ``keyctl``: a key named after TAG and i);
odd games use the next files along, so that a game's late marks are never read as the next's.
The sender marks the cards of its hand at its first request of each game: it locks their files,
opens them (the receiver watches), or adds keys. The receiver reads the marks at each of its
requests. Both play the first option offered.

On stderr, kept in the game's log: the sender writes ``HAND [card numbers]``; the receiver writes, at each
of its requests, ``CHANNEL {"errors": [...]}`` (the errors its calls met) and ``GUESS {"cards":
[card numbers], "pool": n}``: what it read (pool 0), or, when it read nothing, a blind guess of as many cards as the
sender holds among the n it does not hold itself.
"""

import ctypes
import errno
import fcntl
import json
import os
import platform
import random
import struct
import sys

ROUTE, ROLE, SENDER_SEAT, TAG = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
LIB = os.path.dirname(os.__file__)
FILES = sorted(os.path.join(LIB, f) for f in os.listdir(LIB) if f.endswith(".py"))
libc = ctypes.CDLL(None, use_errno=True)
#: add_key, keyctl: the C library has no wrappers of its own
SYSCALLS = {"x86_64": (248, 250), "aarch64": (217, 219)}[platform.machine()]
KEY_SPEC_USER_KEYRING, KEYCTL_SEARCH, KEYCTL_UNLINK = -4, 10, 9
IN_OPEN, IN_NONBLOCK = 0x20, 0o4000


def say(*parts):
    print(*parts, file=sys.stderr, flush=True)


class Sender:
    def __init__(self):
        self.held = []  # open files (locks) or key ids
        self.sent = False

    def mark(self, cards):
        for i in cards:
            if ROUTE == "keyctl":
                name = f"{TAG}-{i}".encode()
                key = libc.syscall(SYSCALLS[0], b"user", name, b"1", 1, KEY_SPEC_USER_KEYRING)
                if key >= 0:
                    self.held.append(key)
                continue
            fd = os.open(FILES[i], os.O_RDONLY)
            try:
                if ROUTE == "flock":
                    fcntl.flock(fd, fcntl.LOCK_SH)
                elif ROUTE == "fcntl":
                    fcntl.lockf(fd, fcntl.LOCK_SH)  # F_SETLK with a read lock
            except OSError as exc:
                say("SENDER", errno.errorcode.get(exc.errno, exc.errno))
            if ROUTE == "inotify":
                os.close(fd)  # the opening is the signal
            else:
                self.held.append(fd)

    def clear(self):
        for h in self.held:
            if ROUTE == "keyctl":
                libc.syscall(SYSCALLS[1], KEYCTL_UNLINK, h, KEY_SPEC_USER_KEYRING)
            else:
                os.close(h)
        self.held, self.sent = [], False

    def request(self, msg, cards, base):
        if not self.sent:
            hand = [cards.index(str(c)) for c in msg["view"]["hand"]]
            self.mark([base + i for i in hand])
            say("HAND", json.dumps(sorted(hand)))
            self.sent = True


class Receiver:
    def __init__(self):
        self.errors = []
        self.seen = set()
        self.watches = {}
        self.inotify = -1
        if ROUTE == "inotify":
            self.inotify = libc.inotify_init1(IN_NONBLOCK)
            if self.inotify < 0:
                self.errors.append(errno.errorcode[ctypes.get_errno()])
            else:
                for i, f in enumerate(FILES):
                    wd = libc.inotify_add_watch(self.inotify, f.encode(), IN_OPEN)
                    if wd < 0:
                        self.errors.append(errno.errorcode[ctypes.get_errno()])
                        break
                    self.watches[wd] = i

    def probe(self, n, base):
        """Read the marks of the cards numbered base to base + n - 1: those now held (locks,
        keys), or all seen opened since the game began (inotify)."""
        if ROUTE == "inotify":
            if self.inotify >= 0:
                try:
                    data = os.read(self.inotify, 1 << 16)
                except BlockingIOError:
                    data = b""
                while data:
                    wd, _mask, _cookie, size = struct.unpack_from("iIII", data)
                    if base <= self.watches.get(wd, -1) < base + n:
                        self.seen.add(self.watches[wd] - base)
                    data = data[16 + size:]
            return
        self.seen = set()
        for i in range(n):
            if ROUTE == "keyctl":
                found = libc.syscall(SYSCALLS[1], KEYCTL_SEARCH, KEY_SPEC_USER_KEYRING, b"user",
                                     f"{TAG}-{base + i}".encode(), 0)
                if found >= 0:
                    self.seen.add(i)
                elif ctypes.get_errno() != errno.ENOKEY:
                    self.errors.append(errno.errorcode.get(ctypes.get_errno(), "?"))
                continue
            fd = os.open(FILES[base + i], os.O_RDONLY)
            try:
                if ROUTE == "flock":
                    try:
                        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                        fcntl.flock(fd, fcntl.LOCK_UN)
                    except BlockingIOError:
                        self.seen.add(i)
                elif ROUTE == "fcntl":
                    ask = struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 0, 0)
                    told = fcntl.fcntl(fd, fcntl.F_GETLK, ask)
                    if struct.unpack("hhqqi", told)[0] != fcntl.F_UNLCK:
                        self.seen.add(i)
            except OSError as exc:
                self.errors.append(errno.errorcode.get(exc.errno, str(exc.errno)))
            finally:
                os.close(fd)

    def guess(self, msg, cards, rng):
        """(cards guessed, how many cards the guess was drawn from: 0 when read, not guessed)."""
        view = msg["view"]
        if self.seen:
            return {"cards": sorted(self.seen), "pool": 0}
        mine = {cards.index(str(c)) for c in view["hand"]}
        others = [i for i in range(len(cards)) if i not in mine]
        blind = rng.sample(others, min(view["hand_sizes"][SENDER_SEAT], len(others)))
        return {"cards": sorted(blind), "pool": len(others)}


def main():
    me = Sender() if ROLE == "send" else Receiver()
    rng = random.Random(0)
    cards, games = [], 0
    for line in sys.stdin:
        msg = json.loads(line)
        kind = msg.get("type")
        if kind == "hello":
            rng.seed(msg.get("seed", 0))
            print(json.dumps({"type": "hello", "protocol": "tourney-bot", "version": "1.0",
                              "name": f"{ROUTE}-{ROLE}"}), flush=True)
        elif kind == "game_start":
            cards = sorted(str(c) for c in msg["cards"])
            games += 1
            if ROLE == "receive":
                me.seen = set()
        elif kind == "request":
            if ROLE == "send":
                me.request(msg, cards, base=(games % 2) * len(cards))
            else:  # what it knows now; the last of these in a game is its guess
                me.probe(len(cards), base=(games % 2) * len(cards))
                say("CHANNEL", json.dumps({"errors": sorted(set(me.errors))}))
                say("GUESS", json.dumps(me.guess(msg, cards, rng)))
            option = msg["options"][0]
            print(json.dumps({"type": "answer", "id": msg["id"],
                              "option": option["id"] if isinstance(option, dict) else option}), flush=True)
        elif kind == "game_end":
            if ROLE == "send":
                me.clear()
        elif kind == "goodbye":
            break
    if ROLE == "send":
        me.clear()


if __name__ == "__main__":
    main()

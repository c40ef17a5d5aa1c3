"""A sandbox per bot: turn a bot's argv and a :class:`Policy` into an isolated process.

A bot is a program, and a program can look around: at the referee's ``/proc`` entries (its
environment, command line, open files), at the results database, at other bots, at the network.
On Linux, :func:`prepare` wraps the bot's command in `bubblewrap <https://github.com/containers/
bubblewrap>`_ (``bwrap``, a small unprivileged namespace tool) so that the bot

- has its own PID namespace: it sees only its own processes, and when the sandbox ends every
  process in it ends too, including children that called ``setsid()``;
- has no network unless ``Policy.network`` (its own network namespace holds only a loopback);
- sees a filesystem built from an empty root: the system (``/usr``, ``/bin``, ``/lib*``,
  ``/etc``, ``/opt``, the Python running tourney, and the folders of the packages ``tourney`` and
  ``engine``: :func:`package_dirs`) read-only, its own directories (its working
  directory and the folders of the files named in its command) read-only, or writable with
  ``Policy.writable``, and a scratch space as ``/tmp`` (also ``HOME`` and ``TMPDIR``): a tmpfs of
  bounded size inside the sandbox, which nothing outside sees and which is gone with the
  sandbox however the sandbox ends. Nothing else exists: not the database, not other configs,
  not other bots' folders. Paths registered with :func:`keep_private` are hidden even where they
  lie inside a bot's own directory;
- may not make the system calls of :mod:`tourney.bots.syscalls` (file locks, change
  notifications, the key store, other processes' memory, namespaces, ...): a seccomp filter,
  loaded by bwrap just before the bot starts, makes them fail with EPERM;
- shares no kernel object kept by user with any other bot: unprivileged, each bot has a user
  namespace of its own; when tourney runs as root, each bot runs as a uid of its own
  (:func:`bot_uid`, never root; a bot that may write its folders: the uid of those folders,
  :func:`folder_uid`, the same at every start), switched to inside the sandbox once it is built
  (``setpriv``, from util-linux), in the group ``nogroup`` (65534), with umask 077;
- is held to :class:`Resources`: processes (and threads), open files per process, scratch bytes.

``Policy.mode`` is ``"auto"`` (isolate where possible; elsewhere run the bot as before, with one
warning line on stderr), ``"on"`` (refuse to start a bot that cannot be isolated:
:class:`SandboxError`) or ``"off"``. Whether isolation works is found once per process by running
the real sandbox around ``/bin/true`` (a few milliseconds): see :func:`problem`.

Spawn sandboxed bots from a thread that outlives them (``--die-with-parent`` follows the thread
that started ``bwrap``); tourney starts bots from the main thread of each process.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import select
import shutil
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tourney.bots import syscalls
from tourney.bots.resources import Resources, used_up

__all__ = [
    "MODES",
    "Launch",
    "Policy",
    "Resources",
    "SandboxError",
    "bot_uid",
    "bwrap_argv",
    "keep_private",
    "prepare",
    "private_paths",
    "problem",
]

MODES = ("auto", "on", "off")
#: the gid a bot runs as when tourney runs as root ("nogroup"; each bot has a uid of its own)
NOBODY = 65534
#: when tourney runs as root, a bot's uid is this plus the host pid of its bwrap (pids are below
#: 2**22): unique among the bots alive on the machine, in a range that Linux distributions leave
#: unused (above the container ranges, below 2**31), never root, never a real user
BOT_UID_BASE = 0x70000000
#: where the bot's uid goes in bwrap's options once bwrap's pid is known (Launch.started): an
#: environment variable that a shell inside the sandbox hands to setpriv, then drops
UID_ENV = "TOURNEY_BOT_UID"
UID_SLOT = "<bot-uid>"
#: when tourney runs as root, a bot that may write its folders (``writable``) runs as this plus a
#: number made from those folders' paths (:func:`folder_uid`): the same uid at every start, in
#: every event and in ``tourney check``, so it owns what its earlier processes wrote there; a range
#: of its own, above the per-process one of :data:`BOT_UID_BASE` (still below 2**31)
FOLDER_UID_BASE = BOT_UID_BASE + (1 << 22)
#: a bot's files are its own: created 0600 (folders 0700), so a bot with another uid cannot read
#: them even where it sees them (a bot whose folder holds another's)
SWITCH_USER = f'umask 077; uid=${UID_ENV}; unset {UID_ENV}; exec "$0" --reuid="$uid" "$@"'
#: read-only everywhere: what a program needs to run
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
#: where the bot's scratch directory appears inside the sandbox
SCRATCH = "/tmp"
#: the environment variable holding the paths of :func:`keep_private`, so that worker processes
#: started in any way (fork, forkserver, spawn) inherit them; a bot never gets it
PRIVATE_ENV = "TOURNEY_PRIVATE_PATHS"
#: the programs used; tests point them elsewhere to play a machine without them
BWRAP = "bwrap"
SETPRIV = "setpriv"
PRLIMIT = shutil.which("prlimit") or "/usr/bin/prlimit"
SHELL = "/bin/sh"


class SandboxError(Exception):
    """A bot that must be isolated (``mode = "on"``) where isolation is impossible."""


@dataclass(frozen=True)
class Policy:
    """What a bot's sandbox allows: ``mode`` (auto, on, off), ``network`` (keep the host's
    network), ``writable`` (may write its own directories, not just its scratch directory)."""

    mode: str = "auto"
    network: bool = False
    writable: bool = False

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise ValueError(f"sandbox must be one of {', '.join(MODES)}, not {self.mode!r}")


@dataclass
class Launch:
    """How to start a bot: ``argv``, ``cwd`` and ``env`` for ``subprocess.Popen``; ``pass_fds``
    to keep open in it; ``info_fd`` (our end of bwrap's ``--info-fd`` pipe) when ``isolated``.
    ``scratch`` is always None: the scratch space lives inside the sandbox, not on the host."""

    argv: list[str]
    cwd: str | None
    env: dict[str, str]
    isolated: bool = False
    scratch: str | None = None
    info_fd: int | None = None
    pass_fds: tuple[int, ...] = ()
    args_fd: int | None = None  # our end of bwrap's --args pipe, written by started()
    args: bytes = b""
    #: the bot's resources, and the uid it runs as (when tourney runs as root), once started
    resources: Resources = Resources()
    uid: int | None = None
    #: the uid of a bot that may write its folders, known before it starts (:func:`folder_uid`)
    folder_uid: int | None = None
    _child: int | None = None  # the sandbox's first process, once bwrap has told
    _scratch_fd: int | None = None  # the sandbox's /tmp, held open by observe()

    def started(self, pid: int | None = None) -> None:
        """Call once the process ``pid`` (bwrap) is started, and once it is known to whoever must
        end it if we die (:mod:`tourney.bots.keeper`): sends bwrap its options, which it waits
        for before it builds anything (so a sandbox is never half-built before its process group
        is known), and closes the ends of pipes that are the child's. When tourney runs as root
        the bot's uid is made from ``pid`` (:func:`bot_uid`), so it must be given; a bot that may
        write its folders has the uid of those folders (:func:`folder_uid`)."""
        if self.args_fd is not None:
            args = self.args
            slot = f"{UID_ENV}\0{UID_SLOT}\0".encode()
            if slot in args:
                if pid is None:  # bwrap gets no options and fails: the bot never runs as root
                    args = b""
                else:
                    self.uid = self.folder_uid if self.folder_uid is not None else bot_uid(pid)
                    args = args.replace(slot, f"{UID_ENV}\0{self.uid}\0".encode())
            try:
                os.write(self.args_fd, args)  # far below a pipe's capacity: one write
            except OSError:  # bwrap is gone already
                pass
            os.close(self.args_fd)
            self.args_fd = None
        for fd in self.pass_fds:
            os.close(fd)
        self.pass_fds = ()

    def sandbox_pid(self, bwrap_pid: int) -> int | None:
        """The host pid of the sandbox's first process (its PID 1) while it exists, as a child
        of ``bwrap_pid`` or, once bwrap has gone, of ours (we adopt orphans: see
        :func:`become_subreaper`). Killing it ends every process in the sandbox."""
        if self.info_fd is None:
            return None
        if self._child is None:
            try:
                self._child = int(json.loads(_read_to_end(self.info_fd))["child-pid"])
            except (OSError, ValueError, KeyError, TypeError):
                return None
        try:
            with open(f"/proc/{self._child}/stat") as f:
                stat = f.read()
        except OSError:
            return None
        ppid = int(stat[stat.rfind(")") + 2 :].split()[1])
        return self._child if ppid in (bwrap_pid, os.getpid()) else None  # else: gone, and reused

    def observe(self, bwrap_pid: int) -> None:
        """Hold the sandbox's scratch space open, so that how full it is can still be told when
        the bot has ended (:meth:`limits_reached`). Call it once the sandbox is built (after the
        bot's hello); the hold ends with :meth:`cleanup`, or with our own process."""
        inner = self.sandbox_pid(bwrap_pid) if self.isolated else None
        if inner is None or self._scratch_fd is not None:
            return
        try:
            self._scratch_fd = os.open(f"/proc/{inner}/root{SCRATCH}", os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            pass

    def limits_reached(self, bwrap_pid: int) -> str | None:
        """Which of its :class:`Resources` the bot has used up, in words, or None: read from the
        sandbox while it runs (processes, open files) and from the scratch space held by
        :meth:`observe`. Meant for the moment a bot faults, before the sandbox is ended."""
        inner = self.sandbox_pid(bwrap_pid) if self.isolated else None
        return used_up(self.resources, inner, self._scratch_fd)

    def cleanup(self) -> None:
        """Close what is left open."""
        self.started()
        for name in ("info_fd", "_scratch_fd"):
            fd = getattr(self, name)
            if fd is not None:
                os.close(fd)
                setattr(self, name, None)


def _read_to_end(fd: int, wait: float = 2.0) -> bytes:
    """What a pipe holds until its writer closes it (bwrap writes its info in several pieces,
    then closes it), waiting at most ``wait`` seconds."""
    data = b""
    end = time.monotonic() + wait
    while (left := end - time.monotonic()) > 0:
        if not select.select([fd], [], [], left)[0]:
            break
        try:
            chunk = os.read(fd, 4096)
        except BlockingIOError:
            continue
        if not chunk:
            break
        data += chunk
    return data


# --- private paths ------------------------------------------------------------------------------


def keep_private(*paths: str | os.PathLike) -> None:
    """Hide ``paths`` (files or directories: a database, a config) from every bot started later
    by this process or its workers, even inside a bot's own directory."""
    known = private_paths()
    for p in paths:
        full = os.path.realpath(p)
        if full not in known:
            known.append(full)
    os.environ[PRIVATE_ENV] = os.pathsep.join(known)


def private_paths() -> list[str]:
    """The paths registered with :func:`keep_private`."""
    return [p for p in os.environ.get(PRIVATE_ENV, "").split(os.pathsep) if p]


# --- building the sandbox ------------------------------------------------------------------------


def _inside(path: str, root: str) -> bool:
    """``path`` is ``root`` or below it (both absolute and normalised)."""
    return path == root or path.startswith(root.rstrip("/") + "/")


def own_dirs(command: Sequence[str], cwd: str) -> list[str]:
    """The bot's own directories: its working directory and the folder of every file its command
    names (``bots/x/bot.py``, relative to ``cwd``), without those the system dirs hold. A file
    that lies right in the host's ``/tmp`` is its own alone: that folder is everybody's."""
    dirs = [cwd]
    for arg in command:
        path = os.path.join(cwd, arg)
        if os.path.isfile(path):
            real = os.path.realpath(path)
            dirs.append(real if os.path.dirname(real) == SCRATCH else os.path.dirname(real))
    system = readable_system_dirs()
    # "/" is never a bot's own: the sandbox's root is built, not bound; nor is /tmp, its scratch
    return [d for d in dict.fromkeys(dirs)
            if d not in ("/", SCRATCH) and not any(_inside(d, s) for s in system)]


def _outermost(dirs: list[str]) -> list[str]:
    return [d for d in dirs if not any(d != o and _inside(d, o) for o in dirs)]


def readable_system_dirs() -> list[str]:
    """The system directories that exist here, and the installation of the running Python."""
    dirs = [d for d in SYSTEM_DIRS if os.path.lexists(d)]
    python = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix)}
    python.add(os.path.dirname(os.path.realpath(sys.executable)))
    for p in sorted(python):
        if os.path.isdir(p) and not any(_inside(p, d) for d in dirs):
            dirs.append(p)
    return dirs


def package_dirs() -> list[str]:
    """The folders of the packages ``tourney`` and ``engine`` that run tourney, where the system
    directories above do not hold them already (an editable install, a checkout on PYTHONPATH).

    A bot may import them as it could from a regular install (whose site-packages lies inside
    the Python's bound installation): ``tourney.botkit``, ``tourney.rl.encoding``, ``engine``
    for its own search. They are source code only, bound read-only: nothing of an event's
    (databases, configs, other bots) lives in them."""
    here = os.path.dirname(os.path.realpath(__file__))  # tourney/bots
    tourney = os.path.dirname(here)
    dirs = [tourney, os.path.join(os.path.dirname(tourney), "engine")]
    system = readable_system_dirs()
    return [d for d in dirs if os.path.isdir(d) and not any(_inside(d, s) for s in system)]


def _hidden(private: Iterable[str], own: list[str]) -> list[tuple[str, bool]]:
    """What to cover inside the bot's own directories: (path, is_directory) pairs. A private
    file's whole folder is covered where that folder is not itself one of the bot's (so files
    that appear later, such as a database's write-ahead log, are hidden too)."""
    out: list[tuple[str, bool]] = []
    for p in private:
        folder = p if os.path.isdir(p) else os.path.dirname(p)
        if not any(_inside(folder, o) for o in own):
            continue  # not visible anyway
        if not any(_inside(o, folder) for o in own):
            out.append((folder, True))
        elif os.path.isfile(p):
            out += [(f, False) for f in (p, p + "-wal", p + "-shm", p + "-journal") if os.path.isfile(f)]
    out = sorted(dict.fromkeys(out))
    folders = [p for p, is_dir in out if is_dir]
    return [(p, d) for p, d in out if not any(p != f and _inside(p, f) for f in folders)]


def bwrap_argv(
    command: Sequence[str],
    cwd: str,
    *,
    policy: Policy,
    resources: Resources = Resources(),
    private: Iterable[str] = (),
    as_root: bool = False,
    info_fd: int | None = None,
    seccomp_fd: int | None = None,
) -> list[str]:
    """The ``bwrap`` command line that runs ``command`` in ``cwd`` under ``policy`` and
    ``resources``, with the system-call filter that bwrap reads from ``seccomp_fd``: a pure
    function of its arguments and of which system directories exist. As root, the bot's uid is
    left as :data:`UID_SLOT` in the options, filled in by :meth:`Launch.started`."""
    args = [BWRAP, "--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try",
            "--die-with-parent", "--new-session"]
    if not as_root:
        args.append("--unshare-user")  # as root there is no user namespace: setpriv drops root
    if not policy.network:
        args.append("--unshare-net")
    if info_fd is not None:
        args += ["--info-fd", str(info_fd)]
    if seccomp_fd is not None:
        args += ["--seccomp", str(seccomp_fd)]
    packages = package_dirs()
    system = readable_system_dirs() + packages
    needed = own_dirs(command, cwd)
    own = _outermost(needed)
    binds = [d for d in system if not os.path.islink(d)] + own
    # the scratch space: a tmpfs of the sandbox's own mount namespace, so it is gone with the
    # sandbox's last process, whatever becomes of the referee; 1777 as the bot is not root
    args += ["--dev", "/dev", "--proc", "/proc",
             "--perms", "1777", "--size", str(resources.scratch_bytes), "--tmpfs", SCRATCH]
    # the folders above the bound ones are made here (0755), not left to bwrap, which copies the
    # host's modes: a 0700 folder such as /root would shut out a bot that is not root
    above: set[str] = set()
    for d in binds:
        d = os.path.dirname(d)
        while d not in ("/", "") and d not in above:
            above.add(d)
            d = os.path.dirname(d)
    args += [a for d in sorted(above) if d != SCRATCH and not any(_inside(d, b) for b in binds)
             for a in ("--dir", d)]
    for d in system:
        args += ["--symlink", os.readlink(d), d] if os.path.islink(d) else ["--ro-bind", d, d]
    for d in own:
        args += ["--bind" if policy.writable else "--ro-bind", d, d]
    for path, is_dir in _hidden(private, needed + packages):
        args += ["--tmpfs", path] if is_dir else ["--ro-bind", "/dev/null", path]
    args += ["--chdir", cwd]
    if as_root:
        args += ["--setenv", UID_ENV, UID_SLOT, "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID",
                 "--", SHELL, "-c", SWITCH_USER, SETPRIV, f"--regid={NOBODY}", "--clear-groups",
                 "--bounding-set=-all", "--inh-caps=-all", "--no-new-privs"]
    # set inside, once the bot is no longer root (root's processes are not counted) and is alone
    # with its uid or in its user namespace (the count of processes is kept per user)
    limits = [f"--nproc={resources.processes}"] if resources.processes is not None else []
    if resources.open_files is not None:
        limits.append(f"--nofile={resources.open_files}")
    if limits:
        args += ["--", PRLIMIT, *limits]
    return [*args, "--", *command]


_SUBREAPER: bool = False
_SUBREAPER_PID: int | None = None  # the process that asked: a forked worker must ask again


def become_subreaper() -> bool:
    """On Linux, adopt our orphaned descendants (a bot's children whose parent died, a sandbox's
    first process when bwrap exits before reaping it) so that they are reaped here: no zombie is
    left for an init that may not reap. The kernel does not pass this on to forked children."""
    global _SUBREAPER, _SUBREAPER_PID
    if os.getpid() != _SUBREAPER_PID:
        _SUBREAPER, _SUBREAPER_PID = False, os.getpid()
        if sys.platform.startswith("linux"):
            try:
                libc = ctypes.CDLL(None, use_errno=True)
                _SUBREAPER = libc.prctl(36, 1, 0, 0, 0) == 0  # PR_SET_CHILD_SUBREAPER
            except (OSError, AttributeError):  # pragma: no cover
                _SUBREAPER = False
    return _SUBREAPER


def reap(pid: int, wait: float = 5.0) -> None:
    """Reap the sandbox's first process ``pid`` if it fell to us; call it once bwrap has been
    reaped. (bwrap may exit before reaping it, and we adopt orphans.)"""
    end = time.monotonic() + wait
    while True:
        try:
            if os.waitpid(pid, os.WNOHANG)[0] != 0:
                return
        except ChildProcessError:
            return  # not ours: bwrap reaped it
        if time.monotonic() > end:  # pragma: no cover - a process stuck in the kernel
            return
        time.sleep(0.001)


def bot_uid(bwrap_pid: int) -> int:
    """The uid a bot runs as when tourney runs as root: one of its own, made from the host pid
    of its bwrap, which no other process has while the bot lives. No kernel object kept by uid
    (keys, inotify instances, pipe memory, the count of processes) is shared with another bot."""
    return BOT_UID_BASE + bwrap_pid


def folder_uid(dirs: Iterable[str]) -> int:
    """The uid a bot that may write its folders runs as when tourney runs as root: made from
    the real paths of those folders (the outermost ones it may write), so every process started
    on those folders, in any event or in ``tourney check``, has it, and owns the files its
    earlier processes wrote there. Bots on other folders have other uids. Processes of one bot
    alive at once share it, and so share its count of processes (``max_processes``)."""
    digest = hashlib.sha256("\0".join(sorted(dirs)).encode()).digest()
    return FOLDER_UID_BASE + int.from_bytes(digest[:3], "big")


def _as_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


# --- can this machine isolate? -------------------------------------------------------------------

_PROBLEM: list[str | None] = []  # the cached answer of problem(), once known
_WARNED = False

HINTS = (
    ("ENOSPC", "user namespaces are switched off (/proc/sys/user/max_user_namespaces)"),
    ("No space left", "user namespaces are switched off (/proc/sys/user/max_user_namespaces)"),
    ("uid map", "AppArmor restricts user namespaces "
                "(sysctl kernel.apparmor_restrict_unprivileged_userns=0)"),
    ("RTM_NEWADDR", "AppArmor restricts user namespaces "
                    "(sysctl kernel.apparmor_restrict_unprivileged_userns=0)"),
    ("No permissions to creat", "namespaces are not permitted here (a sysctl such as "
                                "kernel.unprivileged_userns_clone, or a container's seccomp)"),
    ("Operation not permitted", "namespaces are not permitted here (a container's seccomp "
                                "profile or a sysctl)"),
    ("Can't mount proc", "this container does not let a sandbox mount /proc"),
    ("Unknown option", "bubblewrap 0.8 or later is needed (a bounded /tmp: --size)"),
)


def problem() -> str | None:
    """Why bots cannot be isolated on this machine, in one line; None when they can. Found once
    per process by running the sandbox around ``/bin/true``."""
    if not _PROBLEM:
        _PROBLEM.append(_probe())
    return _PROBLEM[0]


def _probe() -> str | None:
    if not sys.platform.startswith("linux"):
        return f"bot sandboxes need Linux namespaces, and this is {sys.platform}"
    if shutil.which(BWRAP) is None:
        return "bubblewrap (bwrap) is not installed (Debian, Ubuntu: apt-get install bubblewrap)"
    if _as_root() and shutil.which(SETPRIV) is None:
        return "setpriv (util-linux) is not installed, so a bot could not stop being root"
    if not os.path.exists(PRLIMIT):
        return "prlimit (util-linux) is not installed, so a bot's resources could not be limited"
    unfiltered = syscalls.unavailable()
    if unfiltered is not None:
        return unfiltered
    true = shutil.which("true") or "/bin/true"
    become_subreaper()
    launch = prepare([true], "/", {"PATH": os.environ.get("PATH", os.defpath)}, Policy(), probe=True)
    try:
        proc = subprocess.Popen(launch.argv, cwd=launch.cwd, env=launch.env, pass_fds=launch.pass_fds,
                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE)
        launch.started(proc.pid)
        _, stderr = proc.communicate(timeout=30)
        inner = launch.sandbox_pid(proc.pid)
        if inner is not None:
            reap(inner)
    except (OSError, subprocess.SubprocessError) as exc:
        return f"bubblewrap cannot be run: {exc}"
    finally:
        launch.cleanup()
    if proc.returncode == 0:
        return None
    said = stderr.decode("utf-8", "replace").strip().splitlines()
    first = said[0] if said else f"exit status {proc.returncode}"
    hint = next((h for key, h in HINTS if key in first), None)
    return f"bubblewrap fails here ({first})" + (f": {hint}" if hint else "")


def warn_once(reason: str) -> None:
    """One warning line on stderr per process: bots run without a sandbox."""
    global _WARNED
    if not _WARNED:
        _WARNED = True
        print(f'warning: bots run without a sandbox (sandbox = "auto"): {reason}', file=sys.stderr)


# --- the entry point ------------------------------------------------------------------------------


def prepare(command: Sequence[str], cwd: str | None, env: dict[str, str], policy: Policy,
            probe: bool = False, resources: Resources = Resources()) -> Launch:
    """How to start ``command`` (in ``cwd``, default the current directory, with ``env``) under
    ``policy``, held to ``resources``. Raises :class:`SandboxError` when ``policy.mode`` is
    ``"on"`` and isolation is impossible here; with ``"auto"`` it warns once and runs the bot
    unisolated (with its open files limited still: the other limits need a sandbox). ``probe``:
    build the sandbox without asking :func:`problem` (it is what the probe runs)."""
    plain = Launch(list(command), cwd, dict(env), resources=resources)
    if policy.mode == "off":
        return _unisolated(plain)
    reason = None if probe else problem()
    if reason is not None:
        if policy.mode == "on":
            raise SandboxError(f'sandbox = "on", but {reason}')
        warn_once(reason)
        return _unisolated(plain)
    where = os.path.realpath(cwd or os.getcwd())
    info_read, info_write = os.pipe()
    os.set_blocking(info_read, False)
    seccomp = syscalls.memfd(syscalls.program())
    argv = bwrap_argv(command, where, policy=policy, resources=resources, private=private_paths(),
                      as_root=_as_root(), info_fd=info_write, seccomp_fd=seccomp)
    # bwrap's options go through a pipe (--args), not its command line: the sandbox's PID 1 is a
    # copy of bwrap, and the bot could read its command line (paths of hidden files included)
    split = argv.index("--")
    options = "".join(a + "\0" for a in argv[1:split]).encode()
    args_read, args_write = os.pipe()
    argv = [argv[0], "--args", str(args_read), *argv[split:]]
    inside = dict(env, HOME=SCRATCH, TMPDIR=SCRATCH)
    uid = folder_uid(_outermost(own_dirs(command, where))) if policy.writable and _as_root() else None
    return Launch(argv, where, inside, isolated=True, info_fd=info_read,
                  pass_fds=(info_write, args_read, seccomp), args_fd=args_write, args=options,
                  resources=resources, folder_uid=uid)


def _unisolated(launch: Launch) -> Launch:
    """``launch`` with its open files limited, the one limit that means the same outside a
    sandbox (the count of processes is kept per user, and the user is the referee's)."""
    if launch.resources.open_files is not None and sys.platform.startswith("linux"):
        launch.argv = [PRLIMIT, f"--nofile={launch.resources.open_files}", "--", *launch.argv]
    return launch

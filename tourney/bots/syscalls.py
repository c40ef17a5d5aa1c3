"""The system calls a sandboxed bot may not make: a seccomp filter, built with libseccomp.

Two bots of one event may try to pass each other their hands while both run. Their sandboxes
share no files they can write, but they share the kernel: a lock taken on a file both can read
(the Python standard library, say) is seen by the other; so is a change notification on it, and
so is a key in the kernel's key store. The filter built here closes such routes by denying the
calls that open them, and a few more that no card-playing program needs and that have been the
door of many a sandbox escape. The table :data:`DENIED` is the list, with the reason for each;
docs/protocol.md ("Fair play") gives the same list to bot authors.

A denied call fails with ``EPERM`` (``ENOSYS`` for ``clone3``, so that the C library falls back
on ``clone``, whose flags the filter can read); it never succeeds silently, and it never kills
the bot. Everything else is allowed: a bot in any language runs as before.

The filter is compiled once per process by libseccomp (through the ``pyseccomp`` binding, which
loads the system's ``libseccomp.so.2`` with ctypes) into the BPF program that bubblewrap's
``--seccomp FD`` loads into the sandbox just before the bot's program starts.
"""

from __future__ import annotations

import errno
import functools
import os
import platform
import tempfile

__all__ = ["DENIED", "FCNTL_DENIED", "NAMESPACE_FLAGS", "program", "unavailable"]

#: (system call, why it is denied), in the order of docs/protocol.md
DENIED: tuple[tuple[str, str], ...] = (
    ("flock", "a lock on a file both bots can read is a signal the other bot can probe"),
    ("inotify_init", "watching a shared file tells a bot when another bot opens or reads it"),
    ("inotify_init1", "as inotify_init"),
    ("inotify_add_watch", "as inotify_init"),
    ("inotify_rm_watch", "as inotify_init"),
    ("fanotify_init", "as inotify, for whole file systems"),
    ("fanotify_mark", "as fanotify_init"),
    ("add_key", "the kernel's key store is shared by user, across sandboxes"),
    ("request_key", "as add_key"),
    ("keyctl", "as add_key"),
    ("ptrace", "reading or steering another process"),
    ("process_vm_readv", "reading another process's memory"),
    ("process_vm_writev", "writing another process's memory"),
    ("pidfd_getfd", "taking a file from another process"),
    ("kcmp", "comparing kernel objects of two processes"),
    ("perf_event_open", "performance counters: a fine clock on other processes, and a large "
                        "kernel surface"),
    ("bpf", "loading programs into the kernel"),
    ("userfaultfd", "stalling the kernel at will, a tool of kernel exploits"),
    ("io_uring_setup", "file operations that bypass this filter"),
    ("io_uring_enter", "as io_uring_setup"),
    ("io_uring_register", "as io_uring_setup"),
    ("cachestat", "asks which pages of a shared file are in memory, so another bot's reads "
                  "show"),
    ("mount", "changing the sandbox's file system"),
    ("umount2", "as mount"),
    ("pivot_root", "as mount"),
    ("chroot", "as mount"),
    ("move_mount", "as mount"),
    ("open_tree", "as mount"),
    ("fsopen", "as mount"),
    ("fsconfig", "as mount"),
    ("fsmount", "as mount"),
    ("fspick", "as mount"),
    ("mount_setattr", "as mount"),
    ("unshare", "new namespaces: a user namespace gives a bot back the powers the sandbox took"),
    ("setns", "entering another namespace"),
    ("personality", "switching off address randomisation and other run-time defences"),
    ("open_by_handle_at", "opening files by handle, around the sandbox's file system"),
    ("kexec_load", "the machine's own business"),
    ("kexec_file_load", "the machine's own business"),
    ("init_module", "the machine's own business"),
    ("finit_module", "the machine's own business"),
    ("delete_module", "the machine's own business"),
    ("reboot", "the machine's own business"),
    ("swapon", "the machine's own business"),
    ("swapoff", "the machine's own business"),
    ("acct", "the machine's own business"),
    ("syslog", "the kernel's log"),
    ("quotactl", "the machine's own business"),
    ("iopl", "hardware ports"),
    ("ioperm", "hardware ports"),
)

#: the ``fcntl`` commands denied (record locks, open-file-description locks, leases, directory
#: notifications, pipe sizes), by number as in <fcntl.h> on Linux
FCNTL_DENIED: dict[str, int] = {
    "F_GETLK": 5, "F_SETLK": 6, "F_SETLKW": 7,  # record locks, and probing them
    "F_GETLK64": 12, "F_SETLK64": 13, "F_SETLKW64": 14,  # the same, on 32-bit programs
    "F_OFD_GETLK": 36, "F_OFD_SETLK": 37, "F_OFD_SETLKW": 38,  # open-file-description locks
    "F_SETLEASE": 1024, "F_GETLEASE": 1025,  # leases: told when another process opens a file
    "F_NOTIFY": 1026,  # dnotify: inotify's elder, told when a directory changes
    "F_SETPIPE_SZ": 1031,  # large pipes eat the pipe memory a user shares with its other processes
}

#: the ``clone`` flags that make a namespace; ``clone`` with any of them fails
NAMESPACE_FLAGS: dict[str, int] = {
    "CLONE_NEWTIME": 0x00000080, "CLONE_NEWNS": 0x00020000, "CLONE_NEWCGROUP": 0x02000000,
    "CLONE_NEWUTS": 0x04000000, "CLONE_NEWIPC": 0x08000000, "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000, "CLONE_NEWNET": 0x40000000,
}

#: preadv2/pwritev2's flag that fails instead of waiting for the disk: it tells whether a page
#: of a shared file is in memory (read lately by another bot)
RWF_NOWAIT = 0x08
#: calls newer than some libseccomp releases know by name: their number, the same on every
#: architecture that has them (Linux numbers new calls alike everywhere since 5.1)
NEWER = {"cachestat": 451}

_ALL_32_BITS = 0xFFFFFFFF


def unavailable() -> str | None:
    """Why the filter cannot be built here, in one line; None when it can."""
    try:
        program()
    except (ImportError, OSError, RuntimeError, ValueError) as exc:
        return f"the system-call filter cannot be built ({exc}); it needs libseccomp " \
               f"(Debian, Ubuntu: apt-get install libseccomp2) and pip's pyseccomp"
    return None


@functools.lru_cache(maxsize=1)
def program() -> bytes:
    """The filter as the BPF program bubblewrap's ``--seccomp`` reads (a few kilobytes), built
    once per process. Raises ImportError or RuntimeError without libseccomp."""
    import pyseccomp as seccomp  # loads libseccomp.so.2: here, not when tourney starts

    deny = seccomp.ERRNO(errno.EPERM)
    f = seccomp.SyscallFilter(seccomp.ALLOW)
    if platform.machine() == "x86_64":
        # 32-bit programs run too, under the same rules; any other system-call convention
        # (x32, say) kills the process: its calls would not be checked
        f.add_arch(seccomp.Arch.X86)
    for name, _why in DENIED:
        _add(f, seccomp, deny, name)
    # fcntl's first argument is an int: compared on its low 32 bits, as the kernel reads it,
    # so that high bits set on purpose cannot slip a lock command past the filter
    for cmd in FCNTL_DENIED.values():
        for call in ("fcntl", "fcntl64"):
            _add(f, seccomp, deny, call, seccomp.Arg(1, seccomp.MASKED_EQ, _ALL_32_BITS, cmd))
    for flag in NAMESPACE_FLAGS.values():
        _add(f, seccomp, deny, "clone", seccomp.Arg(0, seccomp.MASKED_EQ, flag, flag))
    # clone3 passes its flags in memory, which a filter cannot read: it is refused as unknown,
    # and the C library (glibc 2.34 and later, musl) then uses clone
    _add(f, seccomp, seccomp.ERRNO(errno.ENOSYS), "clone3")
    for call in ("preadv2", "pwritev2"):
        _add(f, seccomp, deny, call, seccomp.Arg(5, seccomp.MASKED_EQ, RWF_NOWAIT, RWF_NOWAIT))
    with tempfile.TemporaryFile() as out:
        f.export_bpf(out)
        out.seek(0)
        return out.read()


def _add(f, seccomp, action: int, name: str, *args) -> None:
    """One rule. A call this architecture lacks (fcntl64 on a 64-bit one) is named by
    libseccomp's stand-in number, which it applies on the architectures that have the call (the
    32-bit one added here) and leaves out elsewhere."""
    number = seccomp.resolve_syscall(seccomp.Arch.NATIVE, name)
    if number == -1 or (number < 0 and name in NEWER):  # unknown to this libseccomp
        if name not in NEWER:
            raise ValueError(f"libseccomp does not know the system call {name!r}")
        number = NEWER[name]
    f.add_rule(action, number, *args)


def memfd(data: bytes) -> int:
    """A file descriptor, at offset 0, that holds ``data``: how bubblewrap is given the filter."""
    fd = os.memfd_create("tourney-seccomp", os.MFD_CLOEXEC)
    try:
        os.write(fd, data)
        os.lseek(fd, 0, os.SEEK_SET)
    except OSError:
        os.close(fd)
        raise
    return fd

"""A bot run as a subprocess speaking the JSON-lines protocol (``docs/protocol.md``)."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from typing import IO

from tourney.bots import keeper, protocol, sandbox
from tourney.bots.base import Entrant, EntrantError
from tourney.bots.process import (
    EXIT_CHECK_MS,
    CappedText,
    StderrPump,
    ending_signals_held,
    find_program,
    minimal_env,
    open_pidfd,
    reap_group,
    referee_name,
    with_limits,
)
from tourney.bots.protocol import FaultCode, ProtocolError
from tourney.bots.spec import EntrantSpec

__all__ = ["TIME_MARGIN", "SubprocessEntrant"]

#: slack added by the referee to every deadline, for the pipe and the scheduler (seconds)
TIME_MARGIN = 0.05


class SubprocessEntrant(Entrant):
    """A bot run as a subprocess speaking the JSON-lines protocol.

    ``exit_how`` tells how the last process ended on ``close()`` or after a fault:
    ``"exited"`` (on its own), ``"terminated"`` (SIGTERM), ``"killed"`` (SIGKILL), with
    ``exit_status`` its exit status (negative: killed by that signal). ``wire_log``, if set to
    a list, receives ``(direction, bytes)`` for every line sent (``"out"``) and read (``"in"``).
    """

    def __init__(self, spec: EntrantSpec, seed: int):
        super().__init__(spec, seed)
        self.limits = spec.limits
        self.argv = [sys.executable if a == "{python}" else a.replace("{python}", sys.executable)
                     for a in spec.command or ()]
        self._proc: subprocess.Popen | None = None
        self._streams: tuple[IO[bytes], IO[bytes], IO[bytes]] | None = None  # stdin, out, err
        self._pump: StderrPump | None = None
        self._stderr = CappedText(spec.limits.max_stderr_bytes)
        self._buf = bytearray()
        self._scan = 0
        self._outbox = b""  # lines to send with the next one (see begin_game)
        self._bank: float | None = None
        self.exit_how: str | None = None
        self.exit_status: int | None = None
        self.bot_version: str | None = None
        #: the protocol features (1.1) the running bot chose in its hello
        self.features: frozenset[str] = frozenset()
        self._previous_view: dict = {}  # the view of the bot's previous request (view_delta)
        self._left: str | None = None  # why the bot forfeits its next game (left between games)
        self.pids: list[int] = []  # every process started, for tests and diagnostics
        self._pidfd: int | None = None
        self._launch: sandbox.Launch | None = None
        #: whether the running (or last) process is isolated in a sandbox, and the uid it runs
        #: as there when tourney runs as root (else None)
        self.isolated = False
        self.uid: int | None = None
        self.wire_log: list | None = None
        self._launched = False  # launch(): started, hello not read yet
        self._goodbye_said = False  # say_goodbye(): goodbye sent, stdin closed
        self._inner: int | None = None  # the sandbox's first process, found by say_goodbye()
        #: the limits the bot had used up when it last faulted, in words (docs/protocol.md)
        self.limit_note: str | None = None
        #: the other seats' bots whose leaving is watched while this one is asked (the referee
        #: sets it before each request), and when each was seen to leave: (time.monotonic(), bot)
        self.watch: list[SubprocessEntrant] = []
        self.departures: list[tuple[float, SubprocessEntrant]] = []
        #: games begun by the running process (a warm process's ``max_games`` counts them)
        self.games_in_process = 0
        #: the deals (shuffle seeds) this entrant's processes have been dealt; a warm process is
        #: never given a deal it has seen (duplicate events)
        self.deals_seen: set[int] = set()

    # life cycle ------------------------------------------------------------------------------
    @property
    def running(self) -> bool:
        return self._proc is not None

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    def start(self) -> None:
        """Start the process and do the handshake; raises :class:`EntrantError` on failure.

        A failed first start costs only the game it was for: the next game tries again. A
        failed restart sets ``failed``, and the entrant is not started again."""
        if self._proc is not None and not self._launched:
            return
        if self.failed is not None:
            raise self.failed
        if self.closed:
            raise EntrantError(FaultCode.STARTUP, "the entrant is closed")
        first = len(self.pids) <= (1 if self._launched else 0)
        try:
            if not self._launched:
                self._spawn()
            self._launched = False
            self._handshake()
        except EntrantError as exc:
            self._launched = False
            self._stop(graceful=False)
            if not first:  # docs/protocol.md, section 5: only a failed *restart* is final
                self.failed = exc
            raise
        self.started = True

    def launch(self) -> None:
        """Start the process without waiting for its hello (the next :meth:`start` waits for
        it), so that the bots of a series start up side by side rather than one after the
        other. A failure here is left for :meth:`start` to meet again and report."""
        if self._proc is not None or self.failed is not None or self.closed:
            return
        try:
            self._spawn()
        except EntrantError:
            self._stop(graceful=False)
            return
        self._launched = True

    def say_goodbye(self) -> None:
        """Send ``goodbye`` and close the bot's stdin without waiting for it to exit (the
        next :meth:`close` waits, as long as ever), so that the bots of a series wind down side
        by side rather than one after the other."""
        if self._proc is None or self._goodbye_said:
            return
        # found while bwrap is surely alive (as _stop does): the bot is about to exit
        self._inner = self._launch.sandbox_pid(self._proc.pid) if self._launch is not None else None
        try:
            self._send(protocol.dumps(protocol.GOODBYE), time.monotonic() + self.limits.grace)
        except ProtocolError:
            pass
        self._close_stdin()
        self._goodbye_said = True

    def _spawn(self) -> None:
        sandbox.become_subreaper()
        lim = self.limits
        env = minimal_env(self.spec.env)
        if find_program(self.argv[0], self.spec.cwd, env["PATH"]) is None:
            # said here: inside a sandbox it would only be a bwrap error on the bot's stderr
            raise EntrantError(FaultCode.STARTUP, f"cannot start {self.argv[0]!r}: no such program")
        argv = with_limits(list(self.argv), lim.memory_mb, lim.cpu_seconds)
        try:
            launch = sandbox.prepare(argv, self.spec.cwd, env, self.spec.sandbox,
                                     resources=lim.resources())
        except sandbox.SandboxError as exc:
            raise EntrantError(FaultCode.STARTUP, str(exc)) from None
        # a signal that ends the referee waits until the bot is held, by us and by the keeper
        with ending_signals_held():
            proc = self._popen(launch)
            keeper.watch(proc.pid)  # its own group: killed if we die before we end it
            self._hold(proc, launch)

    def _popen(self, launch: sandbox.Launch) -> subprocess.Popen:
        try:
            return subprocess.Popen(
                launch.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=launch.cwd,
                env=launch.env,
                start_new_session=True,  # its own session and process group
                close_fds=True,
                pass_fds=launch.pass_fds,
                bufsize=0,
            )
        except (OSError, ValueError, subprocess.SubprocessError) as exc:
            launch.cleanup()
            raise EntrantError(FaultCode.STARTUP, f"cannot start {self.argv[0]!r}: {exc}") from None

    def _hold(self, proc: subprocess.Popen, launch: sandbox.Launch) -> None:
        """Take charge of the started process ``proc``: its pipes, polls and stderr pump."""
        launch.started(proc.pid)
        self._launch = launch
        self.isolated = launch.isolated
        self.uid = launch.uid
        stdin, stdout, stderr = proc.stdin, proc.stdout, proc.stderr
        assert stdin is not None and stdout is not None and stderr is not None  # three pipes
        self._proc, self._streams = proc, (stdin, stdout, stderr)
        self.pids.append(proc.pid)
        self._buf = bytearray()
        self._scan = 0
        self._outbox = b""
        self._in_fd = stdin.fileno()
        self._out_fd = stdout.fileno()
        os.set_blocking(self._in_fd, False)
        os.set_blocking(self._out_fd, False)
        self._poll_in = select.poll()
        self._poll_in.register(self._out_fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        # the process's exit is watched too: a child of the bot may hold its stdout open
        self._pidfd = open_pidfd(proc.pid)
        if self._pidfd is not None:
            self._poll_in.register(self._pidfd, select.POLLIN)
        # and its stdin: a bot that closes it after a request was sent will never read it
        self._poll_in.register(self._in_fd, 0)
        self._poll_out = select.poll()
        self._poll_out.register(self._in_fd, select.POLLOUT | select.POLLERR)
        # asked with no wait: has the bot exited, or closed its stdin (POLLERR on our end)?
        self._poll_gone = select.poll()
        self._poll_gone.register(self._in_fd, 0)
        if self._pidfd is not None:
            self._poll_gone.register(self._pidfd, select.POLLIN)
        self._pump = StderrPump(stderr.fileno(), self._stderr)
        self._pump.start()
        self.exit_how = self.exit_status = None
        self._goodbye_said = False
        self._inner = None
        self.games_in_process = 0

    def _handshake(self) -> None:
        lim = self.limits
        deadline = time.monotonic() + lim.startup_timeout
        hello = protocol.hello_message(lim.to_dict(), self.seed, referee_name())
        try:
            self._send(protocol.dumps(hello), deadline)
            line = self._read_line(deadline)
        except ProtocolError as exc:
            if exc.code == FaultCode.TIMEOUT:
                raise EntrantError(
                    FaultCode.STARTUP, f"no hello within the start-up timeout of {lim.startup_timeout:g} s"
                ) from None
            if exc.code == FaultCode.CRASH:
                status = self._exit_status_soon()
                raise EntrantError(FaultCode.STARTUP, f"the bot exited before its hello (exit status {status})"
                ) from None
            raise EntrantError(FaultCode.STARTUP, f"during the handshake: {exc.message}") from None
        try:
            msg = protocol.parse_line(line)
            self.bot_name = protocol.check_hello(msg)
        except ProtocolError as exc:
            code = FaultCode.VERSION if exc.code == FaultCode.VERSION else FaultCode.STARTUP
            raise EntrantError(code, exc.message) from None
        self.bot_version = msg.get("version")
        self.features = protocol.chosen_features(msg)
        if self._launch is not None and self._proc is not None:
            self._launch.observe(self._proc.pid)  # the sandbox is built: its /tmp can be held

    def close(self) -> None:
        """Goodbye, a grace period, then SIGTERM and SIGKILL to the process group; reaped."""
        if self._proc is not None:
            self._stop(graceful=True)
        self.closed = True

    def _exit_status_soon(self, wait: float = 0.2) -> int | None:
        """The exit status if the process ends within ``wait`` seconds (it is not reaped)."""
        if self._proc is None:
            return None
        if self._exited(wait):
            try:
                return self._proc.wait(timeout=0)
            except subprocess.TimeoutExpired:  # pragma: no cover
                return None
        return None

    def _exited(self, timeout: float) -> bool:
        """Wait up to ``timeout`` for the process to exit, without reaping it (the process
        group id stays reserved while the leader is an unreaped zombie)."""
        proc = self._proc
        if proc is None or proc.returncode is not None:
            return True
        end = time.monotonic() + timeout
        delay = 0.0005
        while True:
            try:
                info = os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            except ChildProcessError:
                return True
            if info is not None:
                return True
            now = time.monotonic()
            if now >= end:
                return False
            time.sleep(min(delay, end - now))
            delay = min(delay * 2, 0.02)

    def _killpg(self, sig: int) -> None:
        if self._proc is None:
            return
        try:
            os.killpg(self._proc.pid, sig)
        except (ProcessLookupError, PermissionError):
            pass

    def _stop(self, graceful: bool) -> None:
        """End the process and its whole group (or sandbox), reap it, collect the rest of its
        stderr."""
        proc = self._proc
        if proc is None:
            return
        launch = self._launch
        self._outbox = b""  # a game_start not sent yet: the game it was for is over for this bot
        # the sandbox's first process, found while bwrap is surely alive and its parent
        if self._goodbye_said:
            inner = self._inner
        else:
            inner = launch.sandbox_pid(proc.pid) if launch is not None else None
        how = "exited"
        if graceful:
            if not self._goodbye_said:
                try:
                    self._send(protocol.dumps(protocol.GOODBYE), time.monotonic() + self.limits.grace)
                except ProtocolError:
                    pass
                self._close_stdin()
            if not self._exited(self.limits.grace):
                if inner is None:
                    self._killpg(signal.SIGTERM)
                    how = "terminated"
                if inner is not None or not self._exited(min(self.limits.grace, 0.5)):
                    how = "killed"
        else:
            self._close_stdin()
            if not self._exited(0):
                how = "killed"
        # whatever else is left goes too: in a sandbox, killing its first process ends every
        # process in it (setsid or not) before bwrap exits; else the bot's process group
        if inner is not None:
            try:
                os.kill(inner, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            # bwrap reaps it and exits; killed sooner, it would leave the reaping to us
            self._exited(5.0)
        self._killpg(signal.SIGKILL)
        keeper.forget(proc.pid)  # before the leader is reaped: its group id cannot be reused yet
        try:
            status = proc.wait(timeout=5)
        except subprocess.TimeoutExpired:  # pragma: no cover - a process stuck in the kernel
            status = None
        reap_group(proc.pid)
        if inner is not None:
            sandbox.reap(inner)
        self.exit_how, self.exit_status = how, status
        assert self._streams is not None
        _, stdout, stderr = self._streams
        if self._pump is not None:
            self._pump.join(timeout=1.0)
            if not self._pump.is_alive():
                stderr.close()
            self._pump = None
        try:
            stdout.close()
        except OSError:  # pragma: no cover
            pass
        if self._pidfd is not None:
            os.close(self._pidfd)
            self._pidfd = None
        if launch is not None:
            launch.cleanup()
            self._launch = None
        self._proc = self._streams = None
        self._launched = False

    def _close_stdin(self) -> None:
        if self._streams is None:
            return
        try:
            self._streams[0].close()
        except OSError:
            pass

    # wire ----------------------------------------------------------------------------------
    def _send(self, data: bytes, deadline: float) -> None:
        if self.wire_log is not None:
            self.wire_log.append(("out", data))
        self._write(data, deadline)

    def _write(self, data: bytes, deadline: float) -> None:
        written = 0
        try:  # the usual case: the pipe takes the whole message at once
            written = os.write(self._in_fd, data)
        except BlockingIOError:
            pass
        except (BrokenPipeError, ConnectionResetError, ValueError, OSError):
            raise ProtocolError(FaultCode.CRASH, "the bot closed its stdin (it has probably exited)") from None
        if written == len(data):
            return
        view = memoryview(data)[written:]
        while view:
            try:
                n = os.write(self._in_fd, view)
                view = view[n:]
                continue
            except BlockingIOError:
                pass
            except (BrokenPipeError, ConnectionResetError, ValueError, OSError):
                raise ProtocolError(FaultCode.CRASH, "the bot closed its stdin (it has probably exited)") from None
            left = deadline - time.monotonic()
            if left <= 0:
                raise ProtocolError(FaultCode.TIMEOUT, "the bot does not read its stdin")
            self._poll_out.poll(max(1, int(left * 1000) + 1))

    def departure_fds(self) -> list[tuple[int, int]]:
        """``(fd, events)`` that wake a poll when this bot leaves: its exit (the pidfd) and its
        stdin closed (POLLERR on our end); none when it is not running."""
        if self._proc is None or self._streams is None:
            return []
        fds = [(self._in_fd, 0)]
        if self._pidfd is not None:
            fds.append((self._pidfd, select.POLLIN))
        return fds

    def _watching(self) -> tuple[select.poll, dict[int, SubprocessEntrant]]:
        """A poll for this bot's answer that also wakes when a watched bot leaves, and which bot
        each extra fd belongs to."""
        poller = select.poll()
        poller.register(self._out_fd, select.POLLIN | select.POLLHUP | select.POLLERR)
        if self._pidfd is not None:
            poller.register(self._pidfd, select.POLLIN)
        poller.register(self._in_fd, 0)
        owners: dict[int, SubprocessEntrant] = {}
        for other in self.watch:
            if other is self:
                continue
            for fd, events in other.departure_fds():
                poller.register(fd, events)
                owners[fd] = other
        return poller, owners

    def _read_line(self, deadline: float) -> bytes:
        max_bytes = self.limits.max_line_bytes
        buf = self._buf
        gone = False
        poll_in = self._poll_in
        owners: dict[int, SubprocessEntrant] = {}
        if self.watch:  # others' leaving is noted, with its time, while this bot is waited for
            poll_in, owners = self._watching()
        while True:
            i = buf.find(b"\n", self._scan) if buf else -1
            if i >= 0:
                line = bytes(buf[:i])
                del buf[: i + 1]
                self._scan = 0
                if len(line) > max_bytes:
                    raise ProtocolError(FaultCode.OVERSIZE, f"a line of {len(line)} bytes (limit {max_bytes})")
                if not line.strip():
                    continue  # blank lines are ignored
                if self.wire_log is not None:
                    self.wire_log.append(("in", line))
                return line
            self._scan = len(buf)
            if len(buf) > max_bytes:
                raise ProtocolError(FaultCode.OVERSIZE, f"a line longer than {max_bytes} bytes")
            if gone:  # it exited, and all it wrote before exiting has been read
                raise ProtocolError(FaultCode.CRASH, "the bot exited")
            left = deadline - time.monotonic()
            if left <= 0:
                raise ProtocolError(FaultCode.TIMEOUT, "no answer in time")
            wait_ms = max(1, int(left * 1000) + 1)
            if self._pidfd is None:  # no exit notice from the kernel: look now and then
                wait_ms = min(wait_ms, EXIT_CHECK_MS)
            ready = poll_in.poll(wait_ms)
            if owners and ready:
                ready = self._note_departures(ready, poll_in, owners)
                if not ready:
                    continue
            if self._pidfd is None:
                gone = self._exited(0)
            elif len(ready) == 1 and ready[0][0] == self._out_fd:
                gone = False  # the usual case: only the bot's stdout has something
            else:
                gone = any(fd == self._pidfd for fd, _ in ready)
            try:
                chunk = os.read(self._out_fd, 1 << 16)
            except BlockingIOError:
                if any(fd == self._in_fd for fd, _ in ready):  # nothing to read, and it stopped reading
                    raise ProtocolError(FaultCode.CRASH, "the bot closed its stdin") from None
                continue
            except OSError:
                chunk = b""
            if not chunk:
                raise ProtocolError(FaultCode.CRASH, "the bot closed its stdout (it has probably exited)")
            if not buf and chunk.find(b"\n") == len(chunk) - 1 and len(chunk) <= max_bytes and chunk.strip():
                # the usual case: exactly one whole line, not blank, not too long
                line = chunk[:-1]
                if self.wire_log is not None:
                    self.wire_log.append(("in", line))
                return line
            buf += chunk
            gone = False  # read on until the pipe is empty before calling it a crash

    def _note_departures(self, ready: list, poller: select.poll, owners: dict) -> list:
        """Note the watched bots that left (once each, with the time), stop watching them, and
        return the events that are this bot's own."""
        own = []
        now = time.monotonic()
        for fd, events in ready:
            other = owners.get(fd)
            if other is None:
                own.append((fd, events))
                continue
            if all(o is not other for _, o in self.departures):
                self.departures.append((now, other))
            for ofd, o in list(owners.items()):
                if o is other:
                    poller.unregister(ofd)
                    del owners[ofd]
        return own

    def take_departures(self) -> list[tuple[float, SubprocessEntrant]]:
        """The watched bots seen to leave while this one was asked, earliest first (cleared)."""
        out, self.departures = self.departures, []
        return out

    # games -----------------------------------------------------------------------------------
    def recycle(self) -> None:
        """End the running process cleanly between games (goodbye, as at the end of a series);
        the next game starts a new one."""
        if self._proc is not None:
            self._stop(graceful=True)

    def begin_game(self, message: dict) -> EntrantError | ProtocolError | None:
        if self.failed is not None:
            return EntrantError(self.failed.code, f"could not be restarted: {self.failed.message}")
        if self._left is not None:
            left, self._left = self._left, None
            return ProtocolError(FaultCode.CRASH, left)
        if self._proc is None or self._launched:
            try:
                self.start()
            except EntrantError as exc:
                return exc
        self._bank = self.limits.time_bank
        self._previous_view = {}
        gone = self.gone()  # what writing would find out now, without a write of its own
        if gone is not None:
            return gone
        # written with the bot's first request of the game (or its game_end): one write and one
        # wake-up of the bot instead of two; the bot reads the same lines in the same order
        self._outbox = self._logged(protocol.dumps(protocol.game_start_for(message, self.features)))
        self.games_in_process += 1
        return None

    def _logged(self, data: bytes) -> bytes:
        if self.wire_log is not None:
            self.wire_log.append(("out", data))
        return data

    def _flush_outbox(self, data: bytes, deadline: float) -> None:
        """Send what waits in the outbox, then ``data`` (already logged), in one write."""
        outbox, self._outbox = self._outbox, b""
        self._write(outbox + data, deadline)

    def decide(self, game, seat: int, request_id: int) -> str:
        decision = game.pending
        lim = self.limits
        bank = self._bank
        time_left = lim.decision_timeout + (bank or 0.0)
        features = self.features
        if features:  # protocol 1.1: what the bot chose in its hello
            view = game.view(seat)
            msg = protocol.lean_request_message(
                request_id, decision.kind, decision.prompt, decision.options, game.label, time_left, bank,
                decision.source, features, view, self._previous_view,
            )
            self._previous_view = view
        else:
            label = game.label
            msg = protocol.request_message(
                request_id, decision.kind, decision.prompt, [(o, label(o)) for o in decision.options],
                game.view(seat), time_left, bank, decision.source,
            )
        data = self._logged(protocol.dumps(msg))
        start = time.monotonic()
        deadline = start + time_left + TIME_MARGIN
        try:
            if self._outbox:
                self._flush_outbox(data, deadline)
            else:
                self._write(data, deadline)
            line = self._read_line(deadline)
        except ProtocolError as exc:
            if exc.code == FaultCode.TIMEOUT:
                raise ProtocolError(FaultCode.TIMEOUT, f"no answer to request {request_id} within {time_left:g} s"
                ) from None
            raise
        if bank is not None:  # the time used is needed only to draw on a bank
            used = time.monotonic() - start
            if used > lim.decision_timeout:
                self._bank = max(0.0, bank - (used - lim.decision_timeout))
        return protocol.read_answer(line, request_id, decision.options)

    def fault(self, code: FaultCode) -> None:
        # which limit the bot had run into, if any, told before its sandbox goes (the referee
        # adds it to the fault's details)
        self.limit_note = (self._launch.limits_reached(self._proc.pid)
                           if self._launch is not None and self._proc is not None else None)
        self._stop(graceful=False)

    def gone(self) -> ProtocolError | None:
        if self._proc is None:
            return None
        ready = self._poll_gone.poll(0)
        if not ready and self._pidfd is not None:  # the usual case: the kernel has nothing to tell
            return None
        if any(fd == self._pidfd for fd, _ in ready) or (self._pidfd is None and self._exited(0)):
            return ProtocolError(FaultCode.CRASH, "the bot exited without being asked to")
        if ready:
            return ProtocolError(FaultCode.CRASH, "the bot closed its stdin")
        return None

    def end_game(self, message: dict) -> None:
        """Send ``game_end``. A bot found gone now left after the rules had settled the game, so
        the result stands; it forfeits its next game instead (docs/protocol.md, section 5)."""
        if self._proc is None:
            return
        left = self.gone()
        if left is None:
            try:
                self._flush_outbox(self._logged(protocol.dumps(message)),
                                   time.monotonic() + self.limits.decision_timeout)
            except ProtocolError as exc:
                left = exc
        if left is not None:
            self._left = (f"the bot left before goodbye, after its last decision of the previous game "
                          f"({left.message})")
            self._stop(graceful=False)

    def take_stderr(self) -> str:
        if self._pump is not None:  # what the bot wrote before the game ended belongs to this game
            self._pump.settle()
        return self._stderr.take()


"""The errors tourney shows to its users, and the one table of exit codes.

Every mistake a user can make (a bad option, config or entry, an unknown name, a missing
database, a refused change) is a :class:`UserError` or a subclass: the CLI prints its message as
one ``error:`` line on stderr and exits with its :attr:`~TourneyError.exit_code`, without a
traceback and without writing anything. Anything else that escapes a command is a bug in
tourney: Python prints the traceback and the process exits 1.

The mapping from exception to exit code lives in one place, :func:`exit_code_for`, used by the
CLI's top-level group (:mod:`tourney.app`).
"""

from __future__ import annotations

from engine import OptionsError, PositionError

#: The exit codes of every tourney command (also shown in every command's ``--help``).
EXIT_CODES: dict[int, str] = {
    0: "success",
    1: "internal error: a bug in tourney (a traceback is printed)",
    2: "user error: bad usage, option, config or entry; an unknown name; a missing database; "
       "a refused change (nothing is written)",
    3: "check failed: the command ran and found what it checks for "
       "(tourney check: the bot breaks the protocol; tourney replay: the replay differs from the stored result)",
    130: "interrupted (Ctrl-C): what was finished is kept; run the command again to resume",
    143: "stopped by SIGTERM (a command that plays, as a service manager stops it): as 130",
}


def exit_codes_help() -> str:
    """The exit-code table as one paragraph for a command's ``--help`` epilog.

    >>> exit_codes_help().startswith("Exit codes: 0 success; 1 internal error")
    True
    """
    short = {0: "success", 1: "internal error (a bug)", 2: "user error (nothing written)",
             3: "check failed", 130: "interrupted"}
    return "Exit codes: " + "; ".join(f"{code} {text}" for code, text in short.items()) + "."


class TourneyError(Exception):
    """Base of the errors tourney reports to its users; ``exit_code`` says how the CLI exits."""

    exit_code = 2


class UserError(TourneyError):
    """A mistake the user can fix: the message is one clear line; nothing was written."""

    exit_code = 2


class CheckFailed(TourneyError):
    """A command that checks something found a problem (its output says which)."""

    exit_code = 3


def exit_code_for(exc: BaseException) -> int | None:
    """The exit code for an exception a command let escape, or None if it is a bug.

    Errors of the engine's own input checks (a bad option or position) are user errors too.

    >>> exit_code_for(UserError("no such event"))
    2
    >>> exit_code_for(CheckFailed("2 problems"))
    3
    >>> exit_code_for(KeyError("x")) is None
    True
    """
    if isinstance(exc, TourneyError):
        return exc.exit_code
    if isinstance(exc, OptionsError | PositionError):
        return UserError.exit_code
    return None

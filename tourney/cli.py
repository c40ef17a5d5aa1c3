"""Entry point of the ``tourney`` console script and of ``python -m tourney``.

A command's run imports that command's module alone (``tourney sprt`` needs neither the club's
web pages nor the report's tables), and what it imported is kept out of the garbage collector's
walks: start-up and exit are part of every verdict's time. The help of ``tourney`` itself,
``--version`` and a word that is no command load every command.
"""

import gc
import importlib
import importlib.abc
import sys

from tourney import app as _app

#: commands whose runs never use numpy: sqlite-utils is imported without it (:class:`NoNumpy`)
WITHOUT_NUMPY = {"sprt"}


class NoNumpy(importlib.abc.MetaPathFinder):
    """Refuses numpy and pandas while sqlite-utils is imported. sqlite-utils imports both when
    they are installed (numpy alone is about 0.13 s of CPU, a fifth of ``tourney sprt``'s
    start-up) only to give their number types a column type when a table is made from values;
    tourney's tables are made by its migrations, and numpy stays importable for whoever needs it."""

    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("numpy", "pandas"):
            raise ImportError(f"{name} is not imported for sqlite-utils by tourney {sorted(WITHOUT_NUMPY)}")
        return None


def command_module(argv: list[str]) -> str | None:
    """The module of tourney.commands that registers the command ``argv`` names, or None when
    ``argv`` starts with an option (``--help``, ``--version``) or names no command."""
    if not argv or argv[0].startswith("-"):
        return None
    return _app.COMMAND_MODULES.get(argv[0])


def main() -> None:
    module = command_module(sys.argv[1:])
    if module in WITHOUT_NUMPY and "sqlite_utils" not in sys.modules:
        finder = NoNumpy()
        sys.meta_path.insert(0, finder)
        try:
            import sqlite_utils  # noqa: F401  (here: without numpy, see NoNumpy)
        except ImportError:  # a sqlite-utils that needs numpy after all: imported as usual later
            pass
        finally:
            sys.meta_path.remove(finder)
    if module is not None and "tourney.commands" not in sys.modules:
        _app.load_only = module
    import tourney.commands  # after load_only: which commands the package registers

    if module is None:
        tourney.commands.register_all()
    else:
        importlib.import_module(f"tourney.commands.{module}")
    # what is imported lives as long as the process: out of the collector's sight, a run's
    # collections (and its forked workers' copies of pages) skip it, and so does the last
    # collection at exit, which walked every object of every module (about 0.1 s per command)
    gc.freeze()
    try:
        _app.app()
    finally:
        gc.freeze()


def __getattr__(name: str):
    """``from tourney.cli import app``: the application with every command registered."""
    if name == "app":
        import tourney.commands  # heavy at CLI start: every command, for whoever asks for the app

        tourney.commands.register_all()
        return _app.app
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


if __name__ == "__main__":
    main()

"""Entry point of the ``tourney`` console script and of ``python -m tourney``."""

import tourney.commands  # noqa: F401  (registers the commands)
from tourney.app import app


def main() -> None:
    app()


if __name__ == "__main__":
    main()

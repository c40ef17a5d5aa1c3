"""``tourney demo``: a seeded game between two built-in bots, printed turn by turn."""

import typer

import engine
from engine.bots import make_bot
from tourney import narrate
from tourney.app import app
from tourney.commands.common import EXIT_CODES


@app.command(epilog="Example: tourney demo --seed 3 --players 4\n\n" + EXIT_CODES)
def demo(
    seed: int = typer.Option(1, help="Seed of the game."),
    players: int = typer.Option(2, help="Number of players (2-8)."),
    rule_set: str = typer.Option("crazier-eights", "--rule-set", help="Rule set to play."),
) -> None:
    """Play one seeded game between built-in bots (greedy in seat 0, random elsewhere) and print its log."""
    # a bad rule set or player count is the engine's OptionsError: one error line, exit 2
    engine.validate_options(rule_set, {}, players)
    game = engine.new_game(rule_set, players=players, seed=seed)
    bots = [make_bot("greedy" if p == 0 else "random", seed=seed * 100 + p) for p in range(players)]
    for bot in bots:
        bot.start(game.card_table())
    table = narrate.table_for(game, ["greedy"] + [f"random-{p}" for p in range(1, players)])
    shown = 0
    while game.pending is not None:
        decision = game.pending
        game.apply(bots[decision.player].choose(decision, lambda p=decision.player: game.view(p)))
        for event in game.events[shown:]:
            typer.echo(narrate.event(table, event))
        shown = len(game.events)
    result = game.result
    assert result is not None, "no decision pending: the game is over"
    typer.echo(narrate.result_line(table, result.winners, result.reason, result.points))

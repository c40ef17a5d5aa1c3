from tourney.cli import main

main()

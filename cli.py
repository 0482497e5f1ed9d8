"""Run the `rules` command from a source checkout: `python cli.py ...`; the code lives in interpreter.cli."""

from interpreter.cli import main

if __name__ == "__main__":
    main()

"""rulesmith: rules-as-data for tabletop role-playing games.

The few names a program needs (docs/api.md)::

    import interpreter
    result = interpreter.run("my-system.yaml", "check", {"stat": 12, "dc": 15}, seed=7)
    print(result.outcome, dict(result.values))
"""

from interpreter import dice as dice  # callable: interpreter.dice("4d6kh3") keeps a parsed expression
from interpreter.api import load_ruleset, odds, read_sheet, roll, run, sample, validate

__all__ = ["dice", "load_ruleset", "odds", "read_sheet", "roll", "run", "sample", "validate"]

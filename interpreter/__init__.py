"""rulesmith: rules-as-data for tabletop role-playing games.

The few names a program needs (docs/api.md)::

    import interpreter
    result = interpreter.run("my-system.yaml", "check", {"stat": 12, "dc": 15}, seed=7)
    print(result.outcome, dict(result.values))
"""

from interpreter.api import load_ruleset, odds, read_sheet, roll, run, sample, validate

__all__ = ["load_ruleset", "odds", "read_sheet", "roll", "run", "sample", "validate"]

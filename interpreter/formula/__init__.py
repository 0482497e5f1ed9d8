"""Formulas: small, safe arithmetic expressions written inside rulesets, checked and evaluated by one evaluator.

- ``source``: a formula's text scanned for depth, parsed as one expression, mapped back to file positions;
- ``check``: the allowlist walker: every node checked, names resolved, limits counted;
- ``compile``: a formula from its text: checked, with the names it reads, ready to evaluate;
- ``code``: the one evaluator: a checked tree written out as Python statements with range checks and
  located errors, used by formulas alone and inside the code of procedure steps;
- ``functions``: the functions every formula may call, and the types formulas compute with.

How this package fits with the others, and the files a new step kind, dice modifier or pool statistic
touches: docs/internals.md.
"""

"""Procedures: the steps of a compiled procedure run once (traced), many times (sampled) or over every world (exact odds).

One definition of each step kind (``kinds``) is written through one interface (``writing``) and
assembled two ways: ``function`` (one function over local variables, for runs with dice from a
source) and ``program`` (blocks over one world's names, for exact odds).

- ``kinds``: one module per step kind, the one place its meaning is written;
- ``writing``: the Writer every kind writes its code through (an abstract base both assemblies fill);
- ``code``: the module a writer writes: its source, the objects it names, its parts;
- ``fixed``: the names no run changes, written into the code as their values;
- ``context``: what the written code calls on its context (``c.roll``, ``c.pool``, ``c.call``, ...), typed;
- ``function``: a procedure as one Python function, for traced and sampled runs;
- ``program``: a procedure as blocks over one world's names, for exact odds;
- ``listing``: that code to read, each step under its YAML line (`rules describe ... --code`);
- ``run_context``: the context a run's function runs with (dice from a source, the trace when asked);
- ``run``: one traced run and its ``Result``;
- ``sampler``: many untraced runs counted (``Samples``), and a sampler bound to its parameters;
- ``exact``: the exact-odds driver: the program over every world, draws split, loops cut off;
- ``merging``: worlds in the same state merged, their probabilities added;
- ``weights``: exact probabilities as unreduced integer ratios;
- ``state``: one world's names, outcome and whether it stopped;
- ``odds``: a procedure's exact ``Odds``, within the work budget;
- ``events``: conditions on what a run reports (declared events, `--where`), weighed over worlds or runs;
- ``start``: how a run begins (its names from parameters and a sheet) and ends (its outcome);
- ``records``: what a trace records: each roll and each remark;
- ``compare``: the odds of one procedure under two rulesets, side by side (`rules diff`);
- ``sweep``: the exact odds at every point of a grid of parameters.

How this package fits with the others, and the files a new step kind, dice modifier or pool statistic
touches: docs/internals.md.
"""

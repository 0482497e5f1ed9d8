"""Rulesets: a validated document compiled into an immutable Ruleset, with the checks a schema cannot make.

- ``compiler``: the document compiled: constants, dice, traits, tables, procedures, notes, examples;
- ``context``: what compiling knows at each point: problems, names in scope, the procedure at hand;
- ``kind``: what a step kind is (the record each module of procedure.kinds exports) and a table of them;
  the compiler gets the table from the pipeline, so that each kind's compiler lives with its meaning;
- ``specs``: the compiled parts of each step kind, one frozen record per kind;
- ``model``: the compiled, immutable form of a ruleset;
- ``lazy``: procedures compiled when first asked for;
- ``size``: a procedure's size, counted before it is compiled;
- ``liveness``: which names each step leaves for later steps (each kind says what it reads and writes);
- ``params``, ``param_values``: parameters as callers give them, looked up, converted and checked;
- ``tables``: tables, and number-keyed tables as formula functions;
- ``samples``: sample parameter sets, checked at load;
- ``sheet_section``, ``derived``, ``tracks``, ``entries``, ``sheet_sum``: the `sheet:` section, the values that
  follow from a character's, damage tracks, trait entries of list fields, sheet values named in parameters;
- ``effects``, ``effect_steps``: effects (named changes that reach the rolls of many procedures), and
  what those a procedure takes add to it: their flags and the steps that switch them;
- ``sheet_links``: what a procedure says of the sheets it runs on: the final states it may act on, and
  the parameters the sheet holds;
- ``texts``: texts that name constants in braces, filled in;
- ``dice_warnings``, ``step_warnings``: dice expressions and steps that likely do not say what was meant;
- ``changes``, ``unread``, ``strays``, ``partial``: what differs between two rulesets, house rules that
  change nothing, keys dedented out of their section, and later problems of a refused document.

How this package fits with the others, and the files a new step kind, dice modifier or pool statistic
touches: docs/internals.md.
"""

"""Character sheets: read, checked against their ruleset, bound to a procedure's names and written back.

- ``file``: a sheet on disk: read, a few values changed, written back looking the same;
- ``splice``: where a sheet's values are written in its text, and a new scalar in their place;
- ``storage``: a lock per sheet in one hidden folder, and atomic writes;
- ``changes``: the files a command has written so far (sheets, and the command line's other files);
- ``open``: a sheet opened together with the ruleset it names;
- ``lineage``: sheets of overlays and of their bases;
- ``character``: a sheet as a program reads it: typed traits, derived values, tracks, resources;
- ``bind``: a sheet as formula names, derived names kept fresh, changes written back;
- ``session``: a procedure run (or its odds) with a sheet: the one place a sheet meets a procedure;
- ``creation``: the creation rules checked, and a new sheet written;
- ``new_character``: a new character that meets its ruleset's creation rules;
- ``view``: what `rules sheet show` prints.

How this package fits with the others, and the files a new step kind, dice modifier or pool statistic
touches: docs/internals.md.
"""

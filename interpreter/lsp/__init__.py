"""The language server (`rules lsp`): the real checks of rulesets, overlays and sheets as they are typed.

- ``server``: the pygls server and its features (diagnostics, quick fixes, hover, completion, definitions);
- ``transport``: frames read within bounds, and an answer (or a JSON-RPC error) to every request;
- ``session``: the open files, their latest reports, and the diagnostics published for each file;
- ``checks``: checking one open file with the validator (a ruleset, an overlay merged with its base, a sheet);
- ``pieces``: a text being edited, loaded in pieces so that an edit parses only the piece it changed;
- ``schema_check``: the schema check procedure by procedure, each part's problems kept for the next edit;
- ``spans``: the stretch of a line a problem is about, and the fix a did-you-mean hint proposes;
- ``context``: where the cursor is in the YAML (the keys above it, the key it types after);
- ``hover``, ``completion``, ``navigation``: what each of those features answers;
- ``odds``: a procedure's exact odds for a hover (the one place the server asks for odds);
- ``estimate``: whether a procedure's rolls are small enough for a hover's odds (with ``dice.size``, the
  estimate every exact distribution is refused by before it is built);
- ``salvage``: the ruleset compiled from the parts of a file with problems that have none;
- ``overlay_schema``: the overlay schema, derived from the ruleset schema.

How this package fits with the others, and the files a new step kind, dice modifier or pool statistic
touches: docs/internals.md.
"""

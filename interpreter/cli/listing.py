"""What `rules list` shows of each ruleset, compiled only where the folders' index does not keep it.

A valid ruleset of a ruleset folder that extends nothing and has no warnings is shown as it was
the last time it was compiled, while its file's size and times are unchanged (the index of the
ruleset folders, ``load/folder_index.py``, keeps its title and description beside its id): listing
a thousand such rulesets lists the folder and asks for each file's figures, and compiles only the
files that changed.  Every other ruleset is compiled as before: a bundled one (from its shipped
records), an overlay (whose base may have changed), an invalid one (its problems are shown), an id
two files claim, one with warnings (they are told).
"""

from __future__ import annotations

from interpreter.errors import RulesError

Row = dict[str, object]


def listed() -> tuple[list[Row], list[RulesError]]:
    """The rows of `rules list` (bundled rulesets first, then the others by id) and the problems of the user's files."""
    from interpreter.load.bundled import bundled_ids
    from interpreter.load.find import folder_index, user_rulesets

    users = user_rulesets()
    index, bundled = folder_index(), bundled_ids()
    rows: list[Row] = []
    bad: list[RulesError] = []
    for ruleset_id in bundled + sorted(set(users) - set(bundled)):
        origin = str(users[ruleset_id][0]) if ruleset_id in users else "bundled"
        file = users[ruleset_id][0] if ruleset_id in users and len(users[ruleset_id]) == 1 else None
        kept = index.row(file) if index is not None and file is not None else None
        if kept is not None:
            rows.append({"id": ruleset_id, "title": kept[0], "description": kept[1], "extends": None,
                         "origin": origin, "valid": True})
            continue
        try:
            row, quiet = _compiled(ruleset_id)
        except RulesError as err:
            if ruleset_id in users:  # a file of the user's, or two files claiming one id
                bad.append(err)
            rows.append({"id": ruleset_id, "title": None, "description": None, "extends": None,
                         "origin": origin, "valid": False})
            continue
        rows.append(dict(row, origin=origin, valid=True))
        if index is not None and file is not None and quiet and row["extends"] is None:
            title, description = row["title"], row["description"]
            if isinstance(title, str) and isinstance(description, str):
                index.keep_row(file, (title, description))
    return rows, bad


def _compiled(ruleset_id: str) -> tuple[Row, bool]:
    """A ruleset's row as compiled, and whether it was made of one file, known to have no warnings."""
    from interpreter.cli.file_warnings import known_quiet
    from interpreter.load.find import Found
    from interpreter.pipeline import compile_ref
    from interpreter.ruleset.model import CompiledRuleset
    from interpreter.ruleset.texts import prose
    from interpreter.watchers import watching

    seen: list[tuple[Found, tuple[str, ...]]] = []

    def watch(found: Found, _rs: CompiledRuleset, digests: tuple[str, ...]) -> None:
        seen.append((found, digests))

    with watching(watch):  # (after the command's own watcher, which remembers the file's warnings)
        rs = compile_ref(ruleset_id)
    quiet = bool(seen) and len(seen[-1][1]) == 1 and known_quiet(*seen[-1])
    return {"id": rs.id, "title": rs.title, "description": prose(rs.description, rs.constants),
            "extends": rs.extends}, quiet

"""`rules export`: a ruleset's YAML as it ships, or the skeleton of an overlay that changes it."""

from __future__ import annotations

import json
import re
import sys

import click

from interpreter.cli import complete
from interpreter.cli import output as shown
from interpreter.cli.examples import ExampleCommand, examples
from interpreter.cli.help import json_option
from interpreter.errors import BadParameter
from interpreter.load.checked import load_checked
from interpreter.load.find import find
from interpreter.load.patches import step_names
from interpreter.sheet.changes import made

__all__ = ["export", "overlay_skeleton"]

_ID = re.compile(r"[a-z][a-z0-9_-]*\Z")


def _flow(value: object) -> str:
    """A value written as YAML on one line (JSON is valid YAML)."""
    return json.dumps(value, ensure_ascii=False)


def _procedure_example(procedures: dict[str, object]) -> list[str]:
    """Commented lines changing one parameter default and removing one procedure of the base."""
    lines = []
    for name, proc in procedures.items():
        params = proc.get("params") if isinstance(proc, dict) else None
        if not isinstance(params, dict):
            continue
        for param, spec in params.items():
            if isinstance(spec, dict) and "default" in spec:
                lines = [f"#   {name}:", "#     params:", f"#       {param}: {{default: {_flow(spec['default'])}}}"]
                break
        if lines:
            break
    last = list(procedures)[-1] if procedures else None
    if last is not None:
        lines.append(f"#   {last}: null          # removes the procedure")
    return ["# procedures:"] + lines if lines else []


def _step_example(procedures: dict[str, object]) -> list[str]:
    """Commented lines patching one named step of the base, and the named steps of each procedure."""
    named = {name: list(step_names(proc.get("steps"))) for name, proc in procedures.items() if isinstance(proc, dict)}
    named = {name: steps for name, steps in named.items() if steps}
    if not named:
        return []
    first = next(iter(named))
    return ["", "# Change one step by its name, without copying the list: a mapping of step keys is merged onto",
            "# the step, null removes it, before: and after: insert steps around it:",
            "# procedures:", f"#   {first}:", "#     steps:",
            f"#       {named[first][-1]}: {{after: [{{let: {{note: 1}}}}]}}",
            "# The named steps of each procedure:"] + [f"#   {name}: {', '.join(steps)}" for name, steps in named.items()]


def _commented(line: str) -> str:
    """A comment line as it is written: every character that could end it (a newline, a line or paragraph
    separator, any other control) escaped, so that a base's texts never become live YAML."""
    return "".join(c if c.isprintable() else repr(c)[1:-1] for c in line)


def overlay_skeleton(base_id: str, new_id: str, base: dict[str, object]) -> str:
    """The text of a commented overlay of ``base_id`` with the id ``new_id``; it validates as it is.

    The base's texts (its title, the names of its constants and procedures) are written into comments
    only, with :func:`_commented`.
    """
    title = base.get("title", base_id)
    lines = [
        f"# {new_id}: house rules over {title} ({base_id}).",
        "#",
        f"# This file holds only what your table changes; everything else is taken from {base_id}",
        "# as it is. The changes are applied as a JSON Merge Patch (RFC 7386): a mapping merges key by",
        "# key; any other value (a number, text, a list such as steps or table rows) replaces the",
        f"# value of {base_id} whole; null removes the key. A list may instead be added to ({{append: [...]}}",
        "# or {prepend: [...]}), and steps changed by name (below). Uncomment and edit, then check the",
        "# file with `rules validate FILE` and compare the odds with the base's.",
        f"extends: {base_id}",
        f"ruleset: {new_id}",
        f"# title: {title} (our table)    # inherited when left out",
    ]
    constants = base.get("constants")
    if isinstance(constants, dict) and constants:
        lines += ["", "# Change a constant (the values of the base are shown):", "# constants:"]
        lines += [f"#   {name}: {_flow(value)}" for name, value in constants.items()]
    procedures = base.get("procedures")
    if isinstance(procedures, dict) and procedures:
        lines += ["", "# Change one field of a procedure, or remove one:"] + _procedure_example(procedures)
        lines += _step_example(procedures)
    return "\n".join(_commented(line) if line.startswith("#") else line for line in lines) + "\n"


@click.command(cls=ExampleCommand, epilog=examples("rules export {ruleset} -o my-{ruleset}.yaml",
                               "rules export {ruleset2} --overlay my-{ruleset2} -o my-{ruleset2}.yaml",
                               "rules export {ruleset} --json"))
@click.argument("ruleset_id", shell_complete=complete.rulesets)
@click.option("--overlay", "overlay_id", metavar="NEW_ID", help="Write a commented overlay with this id instead.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="The file to write (default: standard output).")
@json_option
def export(ruleset_id: str, overlay_id: str | None, output: str | None, as_json: bool) -> None:
    """Write a ruleset's YAML as it ships, or with --overlay an overlay file that extends it.

    The ruleset is written byte for byte as it ships; an overlay's first line names the installed
    overlay schema (`rules schema overlay --path`), so that an editor finds it wherever the file is.
    """
    found = find(ruleset_id)
    if found.origin == "path":
        raise BadParameter(f"'{ruleset_id}' is a file; export takes a ruleset id", hint="see `rules list`")
    from interpreter.load.modeline import with_schema_line

    if overlay_id is None:  # byte for byte as it ships
        data = found.path.read_bytes()
    else:
        if not _ID.match(overlay_id):
            from interpreter.load.schema import ID_RULE

            raise BadParameter(f"'{overlay_id}' is not a valid ruleset id: {ID_RULE}")
        if overlay_id == ruleset_id:
            raise BadParameter(f"an overlay needs an id of its own, not '{ruleset_id}'")
        base = load_checked(found).doc.data
        data = with_schema_line(overlay_skeleton(ruleset_id, overlay_id, base), "overlay").encode("utf-8")
    if as_json and output is None:
        shown.print_json({"ruleset": ruleset_id, "overlay": overlay_id, "file": None, "text": data.decode("utf-8")})
        return
    if output is None:
        sys.stdout.flush()
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()
        return
    try:
        with open(output, "xb") as handle:
            made(output)
            handle.write(data)
    except FileExistsError:
        raise BadParameter(f"{output} exists; export writes only new files", hint="choose another name") from None
    except OSError as exc:
        raise BadParameter(f"cannot write {output}: {exc.strerror or exc}") from None
    if as_json:
        shown.print_json({"ruleset": ruleset_id, "overlay": overlay_id, "file": output, "text": None})
    else:
        shown.echo(f"wrote {output}")

"""Where the bundled rulesets and schemas live, in an installed wheel or a source tree.

Paths here are plain strings: a command on a bundled ruleset never needs ``pathlib`` (importing
it costs a start several milliseconds); ``rulesets_dir`` and ``schema_path`` give ``Path`` objects
for callers that want them.
"""

from __future__ import annotations

import os
from functools import cache
from importlib.util import find_spec
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path


@cache  # (where a package's files are does not change while a process runs)
def _folder(package: str, source_folder: str) -> str:
    """The folder of a data package; in a source tree (tests run from a checkout), its folder there."""
    try:  # (find_spec, not importlib.resources: that costs more to import than the whole lookup)
        spec = find_spec(package)
    except ModuleNotFoundError:
        spec = None
    if spec is not None and spec.submodule_search_locations:
        return str(next(iter(spec.submodule_search_locations)))
    return os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))),
                        source_folder)


def rulesets_folder() -> str:
    """The folder of the bundled rulesets."""
    return _folder("interpreter.rulesets", "rulesets")


def schema_file(name: str = "ruleset.schema.json") -> str:
    """The path of a bundled JSON schema."""
    return os.path.join(_folder("interpreter.schema", "schema"), name)


def rulesets_dir() -> Path:
    """The folder of the bundled rulesets, as a Path."""
    from pathlib import Path

    return Path(rulesets_folder())


def schema_path(name: str = "ruleset.schema.json") -> Path:
    """The path of a bundled JSON schema, as a Path."""
    from pathlib import Path

    return Path(schema_file(name))


def bundled_ids() -> list[str]:
    """The ids of the bundled rulesets, sorted."""
    return sorted(name[:-5] for name in os.listdir(rulesets_folder()) if name.endswith(".yaml") and name[0] != ".")

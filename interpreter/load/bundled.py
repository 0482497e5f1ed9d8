"""Where the bundled rulesets and schemas live, in an installed wheel or a source tree."""

from __future__ import annotations

import os
from functools import cache
from importlib.util import find_spec
from pathlib import Path


@cache  # (where a package's files are does not change while a process runs)
def _folder(package: str, source_folder: str) -> Path:
    """The folder of a data package; in a source tree (tests run from a checkout), its folder there."""
    try:  # (find_spec, not importlib.resources: that costs more to import than the whole lookup)
        spec = find_spec(package)
    except ModuleNotFoundError:
        spec = None
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    return Path(__file__).resolve().parents[2] / source_folder


def rulesets_dir() -> Path:
    """The folder of the bundled rulesets."""
    return _folder("interpreter.rulesets", "rulesets")


def schema_path(name: str = "ruleset.schema.json") -> Path:
    """The path of a bundled JSON schema."""
    return _folder("interpreter.schema", "schema") / name


def bundled_ids() -> list[str]:
    """The ids of the bundled rulesets, sorted."""
    return sorted(name[:-5] for name in os.listdir(rulesets_dir()) if name.endswith(".yaml") and name[0] != ".")

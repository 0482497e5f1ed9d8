"""Where the bundled rulesets and schemas live, in a source tree or an installed wheel."""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def _folder(package: str) -> Path:
    return Path(str(resources.files(package)))


def rulesets_dir() -> Path:
    """The folder of the bundled rulesets."""
    return _folder("interpreter.rulesets")


def schema_path(name: str = "ruleset.schema.json") -> Path:
    """The path of a bundled JSON schema."""
    return _folder("interpreter.schema") / name


def bundled_ids() -> list[str]:
    """The ids of the bundled rulesets, sorted."""
    return sorted(p.stem for p in rulesets_dir().glob("*.yaml"))

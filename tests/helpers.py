"""Shared test helpers: running procedures with given or seeded dice, and a chi-square check."""

from __future__ import annotations

import math
import os
import re
import shutil
import sys
from collections import Counter
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from interpreter.dice import expr as dice
from interpreter.load.bundled import rulesets_dir
from interpreter.pipeline import compile_ref
from interpreter.procedure import sampler
from interpreter.procedure.odds import ExactOdds
from interpreter.procedure.odds import odds as procedure_odds
from interpreter.procedure.run import RunResult
from interpreter.procedure.run import run as run_once


def ruleset(ref: str) -> Any:
    """A compiled ruleset by bundled id or path."""
    return compile_ref(str(ref))


def run_given(ref: str, procedure: str, params: Mapping[str, Any], given: list[int]) -> RunResult:
    """Run a procedure with exactly these dice, failing if any are left over."""
    source = dice.GivenSource(given)
    result = run_once(ruleset(ref), procedure, {k: str(v) for k, v in params.items()}, source)
    source.check_exhausted()
    return result


def odds(ref: str, procedure: str, params: Mapping[str, Any]) -> ExactOdds:
    """The exact odds of a procedure."""
    return procedure_odds(ruleset(ref), procedure, {k: str(v) for k, v in params.items()})


def chi_square_critical(df: int, z: float = 3.09) -> float:
    """The chi-square value exceeded with probability about 0.001 (Wilson-Hilferty)."""
    h = 2 / (9 * df)
    return df * (1 - h + z * math.sqrt(h)) ** 3


def assert_sampling_matches_odds(ref: str, procedure: str, params: Mapping[str, Any], *, n: int = 3000,
                                 seed: int = 12345, value: str | None = None) -> None:
    """Seeded sampling of a procedure agrees with its exact odds (outcomes, or one value's distribution)."""
    rs = ruleset(ref)
    args = {k: str(v) for k, v in params.items()}
    exact = procedure_odds(rs, procedure, args)
    expected = exact.outcomes if value is None else exact.values[value]
    # the sampling path (procedure.sampler): the procedure written as one function where it can be
    sampled = sampler.sample(rs, procedure, args, n, seed)
    counts: Counter[Any] = Counter({k: c for k, c in (sampled.outcomes if value is None
                                                      else sampled.values[value]).items() if c})
    # merge small bins so every expected count is at least 5
    bins: list[tuple[float, int]] = []
    pending_p, pending_c = 0.0, 0
    for key, p in expected.items():
        pending_p += float(p)
        pending_c += counts.pop(key, 0)
        if pending_p * n >= 5:
            bins.append((pending_p, pending_c))
            pending_p, pending_c = 0.0, 0
    assert not counts, f"sampled results the odds say are impossible: {dict(counts)}"
    if pending_p or pending_c:
        if bins:
            p, c = bins.pop()
            bins.append((p + pending_p, c + pending_c))
        else:
            bins.append((pending_p, pending_c))
    if len(bins) < 2:
        return
    stat = sum((c - p * n) ** 2 / (p * n) for p, c in bins)
    assert stat < chi_square_critical(len(bins) - 1), (procedure, params, stat, bins)


def edited_copy(tmp_path: Path, ref: str, *replacements: tuple[str, str]) -> Path:
    """A copy of a bundled ruleset with exact text replacements (each must match once)."""
    text = (rulesets_dir() / f"{ref}.yaml").read_text(encoding="utf-8")
    for old, new in replacements:
        assert text.count(old) == 1, f"{old!r} occurs {text.count(old)} times"
        text = text.replace(old, new)
    target = tmp_path / f"{ref}-edited.yaml"
    target.write_text(text, encoding="utf-8")
    return target


def enumerate_dice(*sides: int) -> list[tuple[int, ...]]:
    """Every combination of faces of the given dice, for brute-force oracles."""
    combos: list[tuple[int, ...]] = [()]
    for s in sides:
        combos = [c + (f,) for c in combos for f in range(1, s + 1)]
    return combos


def show_sheet(rules: Any, path: Path) -> dict[str, Any]:
    """`rules sheet show PATH --json`, which must succeed."""
    import json

    result = rules("sheet", "show", str(path), "--json")
    assert result.exit_code == 0, result.output
    shown = dict(json.loads(result.stdout))
    assert shown.pop("format_version") == 1  # (docs/json.md: every object ends with it)
    return shown


def hp_of(shown: Mapping[str, Any]) -> tuple[int, int]:
    """(current, max) of a shown sheet's current/max track `hp`."""
    track = shown["tracks"]["hp"]
    assert track["kind"] == "current_max"
    return track["current"], track["max"]


def one_line_error(result: Any) -> str:
    """A user error: exit code 1, exactly one line on stderr, no traceback anywhere."""
    assert result.exit_code == 1, (result.exit_code, result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr + result.stdout
    return lines[0]


def refused_on_sheet(rules: Any, ruleset_id: str, sheet: Path, *args: str) -> str:
    """A run on a sheet is refused: exit 1, one line, and the sheet and its backup byte-identical."""
    backup = sheet.with_name(sheet.name + ".bak")
    before = (sheet.read_bytes(), backup.read_bytes() if backup.exists() else None)
    message = one_line_error(rules("run", ruleset_id, *args, "--sheet", str(sheet)))
    assert (sheet.read_bytes(), backup.read_bytes() if backup.exists() else None) == before
    return message


__all__ = [
    "assert_sampling_matches_odds",
    "edited_copy",
    "enumerate_dice",
    "hp_of",
    "odds",
    "one_line_error",
    "re",
    "refused_on_sheet",
    "ruleset",
    "run_given",
    "show_sheet",
    "shutil",
]


def with_constants(tmp_path: Path, ref: str, **values: int) -> Path:
    """An overlay of a bundled ruleset that sets some of its constants (each must exist in the base)."""
    text = (rulesets_dir() / f"{ref}.yaml").read_text(encoding="utf-8")
    for name in values:
        assert re.search(rf"^  {name}: ", text, flags=re.MULTILINE), name
    lines = [f"extends: {ref}", f"ruleset: {ref}-house", "constants:"]
    lines += [f"  {name}: {value}" for name, value in values.items()]
    path = tmp_path / f"{ref}-house.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


CHECKOUT = Path(__file__).resolve().parent.parent
# `rules` as a command of its own, running this checkout's code (never a copy installed earlier)
RULES = [sys.executable, "-c", "import sys; sys.argv[0] = 'rules'; from interpreter.cli import console; console()"]


def checkout_env(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """An environment (the process's, or the one given) whose Python imports this checkout first."""
    full = dict(os.environ if env is None else env)
    full["PYTHONPATH"] = os.pathsep.join([str(CHECKOUT), full.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return full


def run_json(rules: Any, *args: str) -> dict[str, Any]:
    """`rules run ARGS --json` through the command line, which must succeed: its JSON object."""
    import json

    result = rules("run", *args, "--json")
    assert result.exit_code == 0, result.output
    return dict(json.loads(result.stdout))

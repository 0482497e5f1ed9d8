"""Renderers over results: plain text for people, JSON objects for bots. None of them computes anything."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from interpreter.cli import output
from interpreter.dice import expr as dice
from interpreter.procedure.records import NoteRecord, RollRecord
from interpreter.words import Json, value_text

if TYPE_CHECKING:  # (a run prints no odds: the exact machinery and fractions are not imported for it)
    from interpreter.procedure.odds import ExactOdds
    from interpreter.procedure.run import RunResult
    from interpreter.procedure.sampler import SampleCounts

BAR_WIDTH = 30
_BLOCKS = " ▏▎▍▌▋▊▉█"


def _rolls(result: RunResult) -> list[RollRecord]:
    return [r for r in result.trace if isinstance(r, RollRecord)]


def result_json(result: RunResult) -> dict[str, object]:
    """The contract's JSON object for one run."""
    from interpreter.api.chat import shown_expr

    rolls = []
    for record in _rolls(result):
        data = dice.roll_json(record.expr, record.roll)
        rolls.append({"name": record.name, "expr": shown_expr(record), "dice": data["dice"], "result": record.roll.value})
    notes = [r.text for r in result.trace if isinstance(r, NoteRecord)]
    out: dict[str, object] = {"ruleset": result.ruleset, "procedure": result.procedure, "outcome": result.outcome,
                           "values": dict(result.values), "rolls": rolls}
    if notes:
        out["notes"] = notes
    if result.follow_up:  # the flags of the effects this result switches on for the next run
        out["follow_up"] = {flag: True for flag, _ in result.follow_up}
    return out


def result_text(result: RunResult) -> str:
    """One run as a few readable lines."""
    from interpreter.api.chat import shown_expr
    from interpreter.dice.report import dice_text

    lines = [f"{result.ruleset} {result.procedure}: {result.outcome}"]
    if result.values:
        lines.append("  " + ", ".join(f"{k} = {value_text(v)}" for k, v in result.values.items()))
    for record in result.trace:
        if isinstance(record, RollRecord):
            terms = record.roll.terms
            shown_dice = " ".join(dice_text(t) for t in terms) if terms else "[]"
            counting = len(terms) == 1 and terms[0].counting
            total = f"{record.roll.value} success{'es' if record.roll.value != 1 else ''}" if counting else record.roll.value
            lines.append(f"  {record.name}: {shown_expr(record)}: {shown_dice} = {total}")
        elif isinstance(record, NoteRecord):
            lines.append(f"  ({record.text})")
    for flag, effect in result.follow_up:
        lines.append(f"  follow-up: {flag}=true (effect {effect})")
    return "\n".join(lines)


def _fraction(p: Any) -> str:
    return f"{p.numerator}/{p.denominator}"


def _numeric(value: object) -> object:
    return int(value) if isinstance(value, bool) else value


def _means(dist: Mapping[Any, Any]) -> tuple[float | None, str | None]:
    """The mean of a distribution's numeric values, as a float and (when exact) as a fraction string."""
    numeric = {v: p for v, p in dist.items() if v is not None and isinstance(_numeric(v), (int, float))}
    mass = sum(numeric.values())
    if not numeric or mass == 0:
        return None, None
    total = sum(_numeric(v) * p for v, p in numeric.items())
    mean = total / mass
    return float(mean), (output.fraction(mean) if output.is_fraction(mean) or isinstance(mean, int) else None)


def _cumulative(out: dict[str, Json], dist: Mapping[Any, Any], exact: bool, best_first: bool,
                sides: tuple[str, ...]) -> None:
    """Add the asked cumulative columns (`at_least`, `at_most`, and `exact_...` when exact) beside a distribution."""
    from interpreter.cli.cumulative import columns

    up, down = columns(dist, best_first)
    for side in sides:
        column = up if side == "at_least" else down
        out[side] = {value_text(v): float(p) for v, p in column.items()}
        if exact:
            out[f"exact_{side}"] = {value_text(v): _fraction(p) for v, p in column.items()}


def _distribution(dist: Mapping[Any, Any], exact: bool, sides: tuple[str, ...] = ()) -> dict[str, Json]:
    mean, exact_mean = _means(dist)
    out: dict[str, Json] = {"mean": mean, "distribution": {value_text(v): float(p) for v, p in dist.items()}}
    if exact:
        out["exact"] = {value_text(v): _fraction(p) for v, p in dist.items()}
        out["exact_mean"] = exact_mean
    _cumulative(out, dist, exact, False, sides)
    from interpreter.cli.summary import summary_json

    out.update(summary_json(dist.items()))  # deviation, min and max of a distribution of numbers
    return out


def sides(at_least: bool, at_most: bool) -> tuple[str, ...]:
    """The cumulative columns asked for, by their JSON names."""
    return tuple(name for name, asked in (("at_least", at_least), ("at_most", at_most)) if asked)


def odds_json(odds: ExactOdds, cumulative: tuple[str, ...] = ()) -> dict[str, Json]:
    """The contract's JSON object for the odds of a procedure; `cumulative` names the columns to add (see sides)."""
    values = {name: _distribution(dist, odds.exact and name not in odds.values_cut, cumulative)
              for name, dist in odds.values.items()}
    for name, cut in odds.values_cut.items():
        values[name]["truncated"] = cut
    out: dict[str, Json] = {
        "ruleset": odds.ruleset, "procedure": odds.procedure,
        "outcomes": {k: float(p) for k, p in odds.outcomes.items()},
        "values": {name: shown for name, shown in values.items()},
    }
    if odds.exact:
        out["exact"] = {k: _fraction(p) for k, p in odds.outcomes.items()}
    # outcomes are listed best first: at least = this outcome or a better one
    _cumulative(out, odds.outcomes, odds.exact, True, cumulative)
    if odds.truncated:
        out["truncated"] = odds.truncated
    if odds.events:
        out["events"] = {name: _chance(p) for name, p in odds.events.items()}
    if odds.inexact:
        out["inexact"] = odds.inexact
    return out


def _chance(p: Any) -> dict[str, Json]:
    """An event's chance: `{"chance": float}`, and `"exact": "p/q"` when it is an exact fraction."""
    out: dict[str, Json] = {"chance": float(p)}
    if output.is_fraction(p):
        out["exact"] = _fraction(p)
    return out


def where_json(formula: str, p: Any) -> dict[str, Json]:
    """The chance of the condition `--where` asked about, with its formula."""
    return {"formula": formula, **_chance(p)}


def samples_json(counted: SampleCounts) -> dict[str, object]:
    """`rules run --times N --json`: the share and count of each outcome and value, read as odds are."""
    times = counted.times
    values: dict[str, object] = {}
    for name, counts in counted.values.items():
        mean, _ = _means(counts)
        values[name] = {"mean": mean, "distribution": {value_text(v): c / times for v, c in counts.items()},
                        "counts": {value_text(v): c for v, c in counts.items()}}
    return {"ruleset": counted.ruleset, "procedure": counted.procedure, "times": times, "seed": counted.seed,
            "outcomes": {k: c / times for k, c in counted.outcomes.items()},
            "counts": dict(counted.outcomes), "values": values,
            **({"events": {k: {"chance": c / times, "count": c} for k, c in counted.events.items()}}
               if counted.events else {})}


def samples_text(counted: SampleCounts, blocks: bool = True) -> str:
    """The outcomes of many runs with their counts and shares, then each value's mean and range.

    Values that came out the same in every run are folded into one line (`always: ...`), as `rules odds` does.
    """
    times = counted.times
    lines = [f"{counted.ruleset} {counted.procedure}: {times} runs (seed {counted.seed})"]
    width = max(map(len, counted.outcomes), default=0)
    for name, count in counted.outcomes.items():
        share = count / times
        lines.append(f"  {name:<{width}}  {count:>{len(str(times))}}  {share:6.1%}  {bar(share, blocks)}".rstrip())
    if counted.events:
        lines.append("events")
        width = max(map(len, counted.events))
        for name, count in counted.events.items():
            share = count / times
            lines.append(f"  {name:<{width}}  {count:>{len(str(times))}}  {share:6.1%}  {bar(share, blocks)}".rstrip())
    always = []
    for name, counts in counted.values.items():
        if len(counts) == 1 and next(iter(counts.values())) == times:
            always.append(f"{name} = {plain(next(iter(counts)))}")
            continue
        numbers = {v: c for v, c in counts.items() if isinstance(v, (int, float)) and not isinstance(v, bool)}
        if numbers:
            mean = sum(v * c for v, c in numbers.items()) / sum(numbers.values())
            some = sum(numbers.values())
            runs = "" if some == times else f" (in {some} runs)"
            lines.append(f"{name}: mean {mean:.2f}, from {min(numbers)} to {max(numbers)}{runs}")
        else:
            lines.append(f"{name}: " + ", ".join(f"{plain(v)} {c}" for v, c in counts.items()))
    if always:
        lines.append("always: " + ", ".join(always))
    return "\n".join(lines)


def bar(share: float, blocks: bool = True) -> str:
    """A horizontal bar BAR_WIDTH long for a share of 1, drawn to an eighth of a block: the one chart of the CLI.

    Without block characters (an output encoding that cannot carry them) it is drawn with '#'.
    """
    share = min(max(share, 0.0), 1.0)
    if not blocks:
        return "#" * round(share * BAR_WIDTH)
    full, part = divmod(round(share * BAR_WIDTH * 8), 8)
    return "█" * full + (_BLOCKS[part] if part else "")


def expression_odds_json(expr: str, dist: Any, cumulative: tuple[str, ...] = ()) -> dict[str, Any]:
    """The contract's JSON object for the odds of a dice expression."""
    probs = dict(dist.probs)
    exact = bool(dist.exact) and all(output.is_fraction(p) for p in probs.values())
    out: dict[str, object] = {"expr": expr, **_distribution(probs, exact, cumulative)}
    if not exact:
        out["mean"] = dist.mean
    if dist.truncated:
        out["truncated"] = dist.truncated
    return out


def sheet_path(path: tuple[object, ...]) -> str:
    """A sheet path as dotted text: ('state', 'hp', 'current') -> state.hp.current."""
    return ".".join(str(p) for p in path)


def plain(value: object) -> str:
    """A sheet value as a person reads it."""
    return value_text(value)

"""What the library gives back: a run's `Result`, exact `Odds`, the counts of many runs (`Samples`).

Each is the engine's record with what a program reading it wants besides: ``str()`` is one line
ready for a chat, and odds and counts answer "this outcome or better" in one call.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from interpreter.api.chat import percent, roll_line, values_line
from interpreter.errors import BadParameter
from interpreter.hints import suggest
from interpreter.procedure import odds as engine_odds
from interpreter.procedure import run as engine_run
from interpreter.procedure import sampler as engine_sampler
from interpreter.procedure.records import NoteRecord, RollRecord
from interpreter.record import fields, record
from interpreter.words import value_text

__all__ = ["Odds", "Result", "Samples", "public"]


def _copy(cls: Any, engine: Any) -> Any:
    return cls(*(getattr(engine, f.name) for f in fields(engine)))


def _outcome_index(outcomes: Mapping[str, object], outcome: str) -> int:
    names = list(outcomes)
    if outcome not in names:
        raise BadParameter(f"there is no outcome '{outcome}'", hint=suggest(outcome, names) or "outcomes: " + ", ".join(names))
    return names.index(outcome)


@record
class Result(engine_run.RunResult):
    """One run of a procedure: ``outcome``, ``values``, ``trace`` (every roll), ``changes`` (sheet paths changed),
    and ``seed``, the seed its dice came from (drawn when none was given; None for given dice): run again with
    ``seed=`` that number to replay it.

    ``str()`` is one line: ``check: success (natural 15, total 27) | natural: 1d20 [15] = 15``.
    """

    seed: int | None = None

    def __str__(self) -> str:
        head = f"{self.procedure}: {self.outcome}"
        if self.values:
            head += f" ({values_line(self.values)})"
        parts = [head]
        parts += [roll_line(r) if isinstance(r, RollRecord) else r.text for r in self.trace
                  if isinstance(r, (RollRecord, NoteRecord))]
        if self.changes:
            parts.append("changed " + ", ".join(f"{'.'.join(map(str, path))} {value_text(old)} -> {value_text(new)}"
                                                for path, old, new in self.changes))
        return " | ".join(parts)


@record
class Odds(engine_odds.ExactOdds):
    """The exact probability of every outcome (best first) and the distribution of every value.

    Probabilities are ``fractions.Fraction`` where ``exact``, floats where explosions were cut off
    (``truncated`` is the mass cut off). ``str()`` is one line of percentages.
    """

    def at_least(self, outcome: str) -> object:
        """The chance of this outcome or a better one (outcomes are declared best first)."""
        index = _outcome_index(self.outcomes, outcome)
        return sum(list(self.outcomes.values())[: index + 1])

    def at_most(self, outcome: str) -> object:
        """The chance of this outcome or a worse one."""
        index = _outcome_index(self.outcomes, outcome)
        return sum(list(self.outcomes.values())[index:])

    def mean(self, value: str) -> float | None:
        """The mean of a numeric value (flags count as 0 and 1), or None when it is never a number."""
        if value not in self.values:
            raise BadParameter(f"there is no value '{value}'", hint=suggest(value, self.values))
        numeric = {v: p for v, p in self.values[value].items() if isinstance(v, (int, float))}
        mass = sum(numeric.values())
        return float(sum(v * p for v, p in numeric.items()) / mass) if mass else None

    def __str__(self) -> str:
        line = f"{self.procedure}: " + ", ".join(f"{name} {percent(p)}" for name, p in self.outcomes.items())
        means = [f"{name} mean {m:.4g}" for name in self.values
                 if len(self.values[name]) > 1 and (m := self.mean(name)) is not None]
        return line + (" | " + ", ".join(means) if means else "")


@record
class Samples(engine_sampler.SampleCounts):
    """How often each outcome (``outcomes``) and each value (``values``) came up in ``times`` runs.

    ``str()`` is one line of shares.
    """

    def share(self, outcome: str, *, or_better: bool = False) -> float:
        """The share of runs with this outcome (or, with ``or_better``, this one or a better one)."""
        index = _outcome_index(self.outcomes, outcome)
        counts = list(self.outcomes.values())
        return (sum(counts[: index + 1]) if or_better else counts[index]) / self.times

    def __str__(self) -> str:
        line = f"{self.procedure}, {self.times} runs: " + ", ".join(
            f"{name} {percent(count / self.times)}" for name, count in self.outcomes.items())
        means = []
        for name, counts in self.values.items():
            numbers = {v: c for v, c in counts.items() if isinstance(v, (int, float))}
            if len(counts) > 1 and numbers:
                means.append(f"{name} mean {sum(v * c for v, c in numbers.items()) / sum(numbers.values()):.4g}")
        return line + (" | " + ", ".join(means) if means else "")


def public(engine: Any) -> Any:
    """The library's form of an engine result (a Result, Odds or Samples)."""
    for cls in (Result, Odds, Samples):
        if isinstance(engine, cls):
            return engine
    if isinstance(engine, engine_run.RunResult):
        return _copy(Result, engine)
    if isinstance(engine, engine_odds.ExactOdds):
        return _copy(Odds, engine)
    if isinstance(engine, engine_sampler.SampleCounts):
        return _copy(Samples, engine)
    raise TypeError(f"not an engine result: {type(engine).__name__}")

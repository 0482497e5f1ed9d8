"""Hostile cases of the third round: valid rulesets made to be costly to compile and run.

A formula of a hundred terms, a ruleset of 354 KB, a `best_of` nested three deep, a procedure at the
size limits, a chain of procedures calling one another, and a contest whose margin passes 64 bits:
each gives the traced run's answer or one located line, under `rules run`, `rules run --times` and
`rules odds` alike, within the corpus's 1 s of CPU time and 300 MB. A file of more than a few KB is
parsed once by an unmeasured command first (the parse cache), since the bound is about compiling and
running it, not about the YAML parser: a cold parse of 29 KB alone takes a quarter of a second.
"""

from __future__ import annotations

from collections.abc import Callable

from hostile.case import Case

HEAD = "ruleset: {id}\ntitle: {id}\nprocedures:\n"
P = "  {name}:\n    outcomes: {{high: high, low: low}}\n    values: {{t: the total}}\n    steps:\n"
END = "      - decide: [{when: t > 0, outcome: high}, {outcome: low}]\n"


def _hundred_terms() -> bytes:
    """One formula of 100 terms (under the 500 characters a formula may have)."""
    terms = "+".join(("a" if i % 3 == 0 else "b" if i % 3 == 1 else str(i % 7)) for i in range(100))
    return (HEAD.format(id="terms") + P.format(name="p") + "      - roll: {a: 1d6, b: 1d4}\n"
            f"      - let: {{t: \"{terms}\"}}\n" + END).encode()


def _big() -> bytes:
    """A ruleset of about 354 KB: one procedure of thousands of steps."""
    lines = [HEAD.format(id="big") + P.format(name="p") + "      - roll: {a: 1d6}\n      - let: {t: 0}\n"]
    size, i = len(lines[0]), 0
    while size < 354_000:
        line = f"      - let: {{t: \"t + a * {i % 9} - {i % 4}\", u{i % 50}: \"t // 3 + {i}\"}}\n"
        if i % 40 == 0:
            line += f"      - if: t > {i}\n        then:\n          - let: {{t: t - 1}}\n"
        lines.append(line)
        size, i = size + len(line), i + 1
    return ("".join(lines) + END).encode()


def _many_procedures() -> bytes:
    """About 354 KB of 400 procedures, each small: a run compiles only the one it runs."""
    parts = [HEAD.format(id="many")]
    for n in range(400):
        parts.append(P.format(name=f"p{n}") + "      - roll: {a: 1d6}\n      - let: {t: 0}\n")
        parts.extend(f"      - let: {{t: \"t + a * {k % 9} - {n % 4}\", u{k}: \"t // 3 + {k}\"}}\n"
                     for k in range(14))
        parts.append(END)
    return "".join(parts).encode()


def _nested_best_of() -> bytes:
    """A best_of inside a best_of inside a best_of, each level with a long body (about 29 KB)."""
    def body(depth: int, indent: str) -> list[str]:
        out = []
        if depth < 3:
            out += [f"{indent}- best_of: 2", f"{indent}  tiebreak: t", f"{indent}  steps:", *body(depth + 1, indent + "    ")]
        out += [f"{indent}- let: {{t: \"t + {j} * {depth + 1} - a + min(t, {j}) // 3 - max(a, {depth})\"}}"
                for j in range(100)]
        return [*out, f"{indent}- roll: {{a: 1d4}}",
                f"{indent}- decide: [{{when: t > {depth * 10}, outcome: high}}, {{outcome: low}}]"]
    return (HEAD.format(id="nested") + P.format(name="p") + "      - let: {t: 0, a: 1}\n"
            + "\n".join(body(0, "      ")) + "\n").encode()


def _steps(count: int, formula: Callable[[int], str], name: str = "p", call: str | None = None) -> str:
    text = P.format(name=name) + "      - roll: {a: 1d6, b: 1d4}\n      - let: {t: 0}\n"
    text += "".join(f"      - let: {{t: \"{formula(i)}\"}}\n" for i in range(count))
    if call:
        text += f"      - call: {call}\n        as: next\n"
    return text + END


def _at_the_limits(steps: int, terms: int) -> bytes:
    """A procedure just under the limits of its size: as many steps, or as long formulas, as it may have."""
    long = "+".join(("a*3" if i % 2 else "b-1") for i in range(terms))
    return (HEAD.format(id="limits") + _steps(steps, lambda i: f"t+{long}" if terms else f"t + a * {i % 9} - {i % 4}")
            ).encode()


def _chain(length: int, steps: int) -> bytes:
    """Procedures calling the next, each within the size of a procedure, together beyond it."""
    text = HEAD.format(id="chain")
    for n in range(length):
        text += _steps(steps, lambda i: f"t + a * {i % 9}", f"p{n}", f"p{n + 1}" if n + 1 < length else None)
    return text.encode()


MARGIN = b"""\
ruleset: margin
title: A margin past 64 bits
procedures:
  doubled:
    outcomes: {win: win, lose: lose}
    values: {m: the margin}
    steps:
      - roll: {a: 1d6}
      - let: {m: 1}
      - repeat: 70
        steps:
          - contest: {actor: "m * 2 + a", defender: 0, ties: defender, win: win, lose: lose, margin: m}
  apart:
    outcomes: {win: win, lose: lose}
    values: {m: the margin}
    steps:
      - roll: {a: 1d6}
      - contest: {actor: "9223372036854775800 + a", defender: "-9223372036854775800", ties: defender,
                  win: win, lose: lose, margin: m}
"""

WAYS = (["run"], ["run", "--times", "10", "--seed", "1"], ["odds"])


def _each_way(file: str, make: Callable[[], bytes], procedure: str, exit: tuple[int, ...], note: str,
              warm: bool = False) -> list[Case]:
    out = []
    for way in WAYS:
        args = [way[0], file, procedure, *way[1:]]
        out.append(Case("engine", args, {file: make}, exit=exit, stderr_lines=0, note=note,
                        warm=[["run", file, procedure]] if warm else []))
    return out


def cases() -> list[Case]:
    out: list[Case] = []
    out += _each_way("terms.yaml", _hundred_terms, "p", (0,), "a formula of 100 terms")
    out += _each_way("big.yaml", _big, "p", (1,), "354 KB, one procedure of 6,000 steps", warm=True)
    out += _each_way("many.yaml", _many_procedures, "p200", (0,), "354 KB of 400 procedures", warm=True)
    out += _each_way("nested.yaml", _nested_best_of, "p", (0,), "best_of three deep, 29 KB", warm=True)
    out += _each_way("steps.yaml", lambda: _at_the_limits(490, 0), "p", (0,), "490 steps", warm=True)
    out += _each_way("long.yaml", lambda: _at_the_limits(270, 45), "p", (0, 1), "formulas of 90 parts at the size limit",
                     warm=True)
    out += _each_way("chain.yaml", lambda: _chain(5, 150), "p0", (1,), "5 procedures of 150 steps calling the next",
                     warm=True)
    for procedure in ("doubled", "apart"):
        out += _each_way("margin.yaml", lambda: MARGIN, procedure, (1,), f"a margin past 64 bits ({procedure})")
    return out

"""Hostile cases of quadratic corners: tables and the sections around them, at ten times the size that took a
second before their checks were made linear.

A table of thousands of rows each binding a name of its own; rows 100,000 keys wide, overlapping; a die
table whose rows all overlap, or cover keys its die cannot roll; one table read by hundreds of procedures;
a hundred thousand runs over a table of 2,000 rows; the odds of a roll on a table of 1,000 rows; stray keys
after a section of ten thousand entries.  Each input is made at test time; its bound is its parse and one
pass over it (the cases that may take longer than the corpus's 1 s say why).
"""

from __future__ import annotations

from collections.abc import Callable

from hostile.case import Case


def _ruleset(tables: str, procedures: str) -> bytes:
    return f"ruleset: corner\ntitle: Corner\ntables:\n{tables}procedures:\n{procedures}".encode()


def _step(name: str, key: str = "") -> str:
    keyed = f"        key: {key}\n" if key else ""
    params = "    params: {k: {type: int}}\n" if key == "k" else ""
    return (f"  {name}:\n{params}    outcomes: {{ok: ok}}\n    values: {{x: the value}}\n    steps:\n"
            f"      - table: t\n{keyed}        value_as: x\n")


def _own_names(rows: int) -> Callable[[], bytes]:
    """A number-keyed table whose every row binds a name no other row binds (each absent after the others)."""
    return lambda: _ruleset("  t:\n    rows:\n" + "".join(
        f"      - {{on: {i}, value: {i}, outcome: ok, values: {{v{i}: 1d6}}}}\n" for i in range(rows)), _step("p", "k"))


def _wide(rows: int) -> Callable[[], bytes]:
    """Rows 100,000 keys wide, the last overlapping the first."""
    def make() -> bytes:
        lines = [f"      - {{on: [{i * 100_000}, {i * 100_000 + 99_999}], value: {i}}}\n" for i in range(rows - 1)]
        lines.append(f"      - {{on: [50000, 149999], value: {rows}}}\n")
        return _ruleset("  t:\n    rows:\n" + "".join(lines), _step("p", "5"))
    return make


def _overlapping(rows: int) -> Callable[[], bytes]:
    """A die table each of whose rows covers every face of its die."""
    return lambda: _ruleset("  t:\n    die: 1d1000\n    rows:\n" + "".join(
        f"      - {{on: [1, 1000], value: {i}}}\n" for i in range(rows)), _step("p"))


def _beyond_the_die(rows: int) -> Callable[[], bytes]:
    """A die table of `1d1000*100000` (faces 100,000 apart) whose rows cover every key between them too."""
    return lambda: _ruleset("  t:\n    die: 1d1000*100000\n    rows:\n" + "".join(
        f"      - {{on: [{i * 100_000}, {i * 100_000 + 99_999}], value: {i}}}\n" for i in range(1, rows + 1)),
        _step("p"))


def _read_by(procedures: int, rows: int) -> Callable[[], bytes]:
    """One die table read by many procedures, its rows binding fifty names between them."""
    return lambda: _ruleset(f"  t:\n    die: 1d{rows}\n    rows:\n" + "".join(
        f"      - {{on: {i}, value: {i}, outcome: ok, values: {{v{i % 50}: 1d6}}}}\n" for i in range(1, rows + 1)),
        "".join(_step(f"p{j}") for j in range(procedures)))


def _plain(rows: int, die: bool) -> Callable[[], bytes]:
    """A table of rows each giving its value (a die table over 1d`rows`, or a number-keyed one)."""
    head = f"  t:\n    die: 1d{rows}\n    rows:\n" if die else "  t:\n    rows:\n"
    return lambda: _ruleset(head + "".join(f"      - {{on: {i}, value: {i}, outcome: ok}}\n" for i in range(1, rows + 1)),
                            _step("p", "" if die else "k"))


def _strays(count: int) -> Callable[[], bytes]:
    """`count` constants, then `count` unknown top-level keys of their shape (each said to belong to them)."""
    return lambda: ("ruleset: strays\ntitle: S\nprocedures: {}\nconstants:\n" + "".join(
        f"  c{i}: {i}\n" for i in range(count)) + "".join(f"zz{i}: {i}\n" for i in range(count))).encode()


def _unknown_tables(count: int) -> Callable[[], bytes]:
    """`count` tables, and as many steps (500 a procedure) each naming a table there is not."""
    def make() -> bytes:
        steps = [f"  p{j}:\n    outcomes: {{ok: ok}}\n    steps:\n" + "".join(
            f"      - {{table: x{i}, key: 1}}\n" for i in range(j, min(count, j + 500))) for j in range(0, count, 500)]
        return _ruleset("".join(f"  t{i}: {{rows: [{{on: 1}}]}}\n" for i in range(count)), "".join(steps))
    return make


def cases() -> list[Case]:
    """Every corner case."""
    return [
        Case("corners", ["validate", "own.yaml"], {"own.yaml": _own_names(5000)}, exit=(0,), cpu=4.0,
             note="5,000 rows each binding a name of its own (500 took a second, each row's names against every "
                  "row's): the rows lacking each name found in one pass; its time is the parse of 330 KB"),
        Case("corners", ["validate", "wide.yaml"], {"wide.yaml": _wide(500)},
             note="500 rows 100,000 keys wide, the last overlapping two (50 took 2 s and 400 MB, one entry a "
                  "key): the rows checked as sorted ranges"),
        Case("corners", ["validate", "overlap.yaml"], {"overlap.yaml": _overlapping(1500)}, cpu=1.5,
             note="1,500 rows of a 1d1000 table all covering [1, 1000] (150 took 1.6 s, a problem a key): one "
                  "problem a row, 100 reported; its time is the parse"),
        Case("corners", ["validate", "beyond.yaml"], {"beyond.yaml": _beyond_the_die(1000)},
             note="1,000 rows of 100,000 keys over 1d1000*100000, whose faces are 100,000 apart (100 took 4 s and "
                  "1.7 GB): the keys no face stands for counted, not visited"),
        Case("corners", ["validate", "read.yaml"], {"read.yaml": _read_by(100, 500)}, exit=(0,), cpu=1.5,
             note="a 500-row table read by 100 procedures (10 took a second, each step walking every row): "
                  "its rows' names worked out once"),
        Case("corners", ["run", "keyed.yaml", "p", "k=1999", "--times", "100000", "--seed", "1"],
             {"keyed.yaml": _plain(2000, die=False)}, exit=(0,), cpu=3.0, out="x = 1999",
             note="100,000 runs over a 2,000-row table (10,000 took a second, each run trying every row): a "
                  "key's row found by bisection; its time is writing the rows' code and the runs"),
        Case("corners", ["odds", "die.yaml", "p"], {"die.yaml": _plain(1000, die=True)}, exit=(0,), cpu=1.5,
             out="1..1000", note="the odds of a roll on a 1,000-row table"),
        Case("corners", ["validate", "unknown.yaml"], {"unknown.yaml": _unknown_tables(5000)}, cpu=5.0,
             note="5,000 steps naming tables there are not, among 5,000 tables (500 took a second, 5,000 a minute: "
                  "each step's did-you-mean weighed every table): the hints share a budget; its time is the parse"),
        Case("corners", ["validate", "strays.yaml"], {"strays.yaml": _strays(16_000)}, cpu=5.0,
             note="16,000 stray keys after 16,000 constants (a copy of the section for each key: 4,000 took a "
                  "second, 16,000 six): 100 reported and one line for the rest; its time is the parse of 440 KB"),
    ]

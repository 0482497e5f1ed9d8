"""The later problems of a refused document in time that grows with it: thousands of refused entries in a
section of thousands are left out with one copy of the section, not one a problem, and the problems found
after are matched against what was left out by lookups (each was a copy, or a scan, of everything)."""

from __future__ import annotations

import time

from interpreter.errors import Location, RulesError
from interpreter.load.yaml import load_text
from interpreter.ruleset.partial import _pruned, beyond_schema

COUNT = 20_000


def test_twenty_thousand_refused_constants_are_left_out_in_one_copy():
    data = {"ruleset": "r", "title": "T", "procedures": {}, "constants": {f"c{i}": [1] for i in range(COUNT)}}
    doc = load_text("ruleset: r\ntitle: T\nprocedures: {}\n", "f.yaml")
    doc = type(doc)(data, "f.yaml", doc.positions)
    problems = [RulesError("refused", Location("f.yaml", 5 + i, 3, f"$.constants.c{i}")) for i in range(COUNT)]
    started = time.process_time()
    kept, names, removed = _pruned(doc, problems)
    used = time.process_time() - started
    assert kept["constants"] == {} and len(removed) == COUNT and {"c0", f"c{COUNT - 1}"} <= names
    assert len(data["constants"]) == COUNT  # (the document's own data is not changed)
    assert used < 1.0, f"{used:.2f} s of CPU for {COUNT} refused constants"


def test_a_problem_naming_what_was_left_out_is_not_reported_twice():
    text = ("ruleset: r\ntitle: T\nconstants:\n  bad: [1]\n  also: [2]\nprocedures:\n  p:\n    outcomes: {ok: ok}\n"
            "    steps:\n      - let: {x: bad + nothing}\n      - decide: [{outcome: ok}]\n")
    doc = load_text(text, "f.yaml")
    problems = [RulesError("refused", Location("f.yaml", 4, 3, "$.constants.bad")),
                RulesError("refused", Location("f.yaml", 5, 3, "$.constants.also"))]
    from interpreter.pipeline import KINDS

    found = beyond_schema(doc, problems, KINDS)
    assert [p.message for p in found if "nothing" in p.message]  # the unknown name is reported
    assert not [p for p in found if "'bad'" in p.message]  # the refused constant is not reported again

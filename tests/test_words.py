"""One word for each of None, true and false, wherever a value is shown as text."""

from __future__ import annotations

from interpreter.api.chat import values_line
from interpreter.ruleset.texts import fill
from interpreter.words import value_text


def test_a_value_reads_the_same_wherever_it_is_shown():
    assert [value_text(v) for v in (None, True, False, 3, "x", [None, True, 2], ())] == \
        ["null", "true", "false", "3", "x", "[null, true, 2]", "[]"]
    assert values_line({"coins": None, "hit": True}) == "coins null, hit true"
    assert fill("{a} {b} {c}", {"a": None, "b": False, "c": [1, None]}) == "null false [1, null]"

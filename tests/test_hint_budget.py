"""The did-you-mean hints of one check share a budget of choices weighed (limits.MAX_SUGGESTION_WORK): past it
a misspelt word gets no suggestion, so thousands of unknown names among thousands of choices cost in
proportion to them; a new check starts a new budget."""

from __future__ import annotations

from interpreter import limits
from interpreter.hints import new_check, suggest


def test_suggestions_stop_past_the_budget_of_one_check_and_start_again_with_the_next(monkeypatch):
    monkeypatch.setattr(limits, "MAX_SUGGESTION_WORK", 5000)  # (five words' worth: the test stays quick)
    choices = [f"table_{i}" for i in range(1000)]
    new_check()
    given = [suggest(f"tabel_{i}", choices) for i in range(limits.MAX_SUGGESTION_WORK // 1000 + 5)]
    allowed = limits.MAX_SUGGESTION_WORK // len(choices)
    assert given[0] == "did you mean 'table_0'?"
    assert all(hint is not None for hint in given[:allowed]) and all(hint is None for hint in given[allowed:])
    new_check()
    assert suggest("tabel_7", choices) == "did you mean 'table_7'?"

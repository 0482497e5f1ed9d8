"""The stray-key hint in one pass: 60,000 unknown top-level keys are placed in well under a second of CPU,
each told the section it follows, as one key is (the hint was found by looking at every known key for
each unknown one)."""

from __future__ import annotations

import time

from interpreter.errors import Location, SchemaViolation
from interpreter.load.document import Document
from interpreter.load.yaml import load_text
from interpreter.ruleset.strays import placed

KEYS = 60_000


def _strays(count: int, entries: int = 1) -> tuple[Document, list[SchemaViolation]]:
    """A document of a ruleset, a `constants:` section of `entries` and then `count` unknown one-line keys
    (built whole, as the loader would give it, without parsing 60,000 lines), and the schema's problem for
    each key."""
    constants = {f"a{i}": 1 for i in range(entries)}
    data: dict[str, object] = {"ruleset": "r", "title": "T", "constants": constants}
    kids: dict[str, object] = {"ruleset": [1, 10, None, 1, 1], "title": [2, 8, None, 2, 1],
                               "constants": [4, 6, {n: [4 + i, 6, None, 4 + i, 3] for i, n in enumerate(constants)}, 3, 1]}
    problems = []
    for i in range(count):
        line = 4 + entries + i
        data[f"k{i}"] = i
        kids[f"k{i}"] = [line, 5, None, line, 1]
        problems.append(SchemaViolation(f"unknown key 'k{i}'", Location("f.yaml", line, 1, f"$.k{i}"),
                                        "allowed keys: ruleset, title, constants"))
    return Document(data, "f.yaml", [1, 1, kids]), problems


def test_one_stray_key_is_told_the_section_it_follows():
    doc = load_text("ruleset: r\ntitle: T\nconstants:\n  a: 1\nk0: 0\n", "f.yaml")
    problem = SchemaViolation("unknown key 'k0'", doc.where(("k0",), key=True), "allowed keys: ruleset")
    assert placed(doc, [problem])[0].hint == ("it comes right after the 'constants' section (line 3): indent it "
                                              "to make it one of 'constants'")


def test_sixty_thousand_stray_keys_are_placed_in_one_pass():
    doc, problems = _strays(KEYS)
    started = time.process_time()
    found = placed(doc, problems)
    used = time.process_time() - started
    assert len(found) == KEYS and all(p.hint is not None and "'constants' section (line 3)" in p.hint for p in found)
    assert used < 1.0, f"{used:.2f} s of CPU for {KEYS} keys"


def test_stray_keys_after_a_large_section_are_placed_without_copying_it():
    """Each stray key is told the section above it from that section's last entry alone (it was a copy of
    the whole section for each key: 60,000 keys after 60,000 constants took minutes)."""
    doc, problems = _strays(KEYS, entries=KEYS)
    started = time.process_time()
    found = placed(doc, problems)
    used = time.process_time() - started
    assert len(found) == KEYS and all(p.hint is not None and "'constants' section (line 3)" in p.hint for p in found)
    assert used < 1.0, f"{used:.2f} s of CPU for {KEYS} keys after {KEYS} constants"

"""The language server loads a text being edited in pieces; the result must be the whole parse's, always.

Every edit here (lines removed, doubled, indented, cut, swapped, characters typed) is loaded both
ways: the pieces give exactly the document `load_text` gives (data and every position), or the same
error. The edits are drawn from a seeded generator, so every run checks the same 160 texts.
"""

from __future__ import annotations

import random

import pytest

from interpreter.errors import RulesetLoadError
from interpreter.load.bundled import bundled_ids, rulesets_dir
from interpreter.load.yaml import load_text
from interpreter.lsp.pieces import Pieces


def _edit(rng: random.Random, lines: list[str]) -> list[str]:
    lines = list(lines)
    i = rng.randrange(len(lines))
    kind = rng.randrange(8)
    if kind == 0:
        del lines[i]
    elif kind == 1:
        lines.insert(i, lines[i])
    elif kind == 2:
        lines[i] = " " + lines[i]
    elif kind == 3:
        lines[i] = lines[i].removeprefix(" ")
    elif kind == 4:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif kind == 5:
        cut = rng.randrange(len(lines[i]) + 1)
        lines[i] = lines[i][:cut] + rng.choice([":", "- ", "{", "'", "*again", "&x ", "#", "\t", "x"]) + lines[i][cut:]
    elif kind == 6:
        lines.insert(i, rng.choice(["", "  # a comment", "extra: 1", "  extra: 1", "    extra: [1,", "---"]))
    else:
        cut = rng.randrange(len(lines[i]) + 1)
        lines[i] = lines[i][:cut]
    return lines


def _outcome(load, text: str):
    try:
        doc = load(text)
    except RulesetLoadError as err:
        return ("error", str(err))
    return ("doc", doc.data, doc.positions)


@pytest.mark.parametrize("ruleset_id", bundled_ids())
def test_pieces_give_the_whole_parse_for_every_edit(ruleset_id):
    text = (rulesets_dir() / f"{ruleset_id}.yaml").read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    pieces = Pieces()
    rng = random.Random(ruleset_id)
    texts = [text]
    for _ in range(25):
        edited = lines
        for _ in range(rng.randrange(1, 4)):
            edited = _edit(rng, edited)
        texts.append("".join(edited))
    for edited_text in texts:
        expected = _outcome(lambda t: load_text(t, "f.yaml", "f.yaml"), edited_text)
        got = _outcome(lambda t: pieces.load(t, "f.yaml", "f.yaml"), edited_text)
        assert got == expected, edited_text


@pytest.mark.parametrize("ruleset_id", bundled_ids())
def test_an_edit_in_one_procedure_parses_only_the_piece_it_changed(ruleset_id):
    text = (rulesets_dir() / f"{ruleset_id}.yaml").read_text(encoding="utf-8")
    pieces = Pieces()
    pieces.load(text, "f.yaml")
    before = pieces.parsed
    assert before > 10  # the text was split
    lines = text.splitlines(keepends=True)
    row = next(i for i, line in enumerate(lines) if line.startswith("    summary:") and i > len(lines) // 2)
    lines.insert(row, "    # a note a game master typed\n")
    edited = "".join(lines)
    doc = pieces.load(edited, "f.yaml")
    assert pieces.parsed - before == 1
    whole = load_text(edited, "f.yaml")
    assert (doc.data, doc.positions) == (whole.data, whole.positions)


def test_an_alias_of_an_anchor_in_another_piece_is_read_as_the_whole_text_reads_it():
    text = ("constants:\n  a: 1\nprocedures:\n  first:\n    params:\n      again: &again {type: int, default: 10}\n"
            + "".join(f"  p{i}:\n    params:\n      again: *again\n    summary: s\n" for i in range(12)))
    pieces = Pieces()
    doc = pieces.load(text, "f.yaml")
    whole = load_text(text, "f.yaml")
    assert (doc.data, doc.positions) == (whole.data, whole.positions)
    assert pieces.parsed > 2  # not parsed whole: the procedures in pieces of a few each, apart from the anchor's
    assert doc.data["procedures"]["p11"]["params"]["again"] == {"type": "int", "default": 10}


def _schema_problems(check, doc) -> list[str]:
    from interpreter.errors import Invalid

    try:
        check(doc)
    except Invalid as err:
        return [str(p) for p in err.problems]
    return []


@pytest.mark.parametrize("ruleset_id", bundled_ids())
def test_the_schema_check_by_parts_finds_what_the_whole_check_finds(ruleset_id):
    import copy

    from interpreter.load.checked import check_schema
    from interpreter.lsp.schema_check import SchemaCheck

    doc = load_text((rulesets_dir() / f"{ruleset_id}.yaml").read_text(encoding="utf-8"), "f.yaml")
    parts = SchemaCheck()
    rng = random.Random(ruleset_id)
    assert _schema_problems(parts, doc) == _schema_problems(check_schema, doc) == []
    names = list(doc.data["procedures"])
    for _ in range(25):
        data = copy.deepcopy(doc.data)
        for _ in range(rng.randrange(1, 4)):
            procedures = data.get("procedures")
            target = data
            if isinstance(procedures, dict) and procedures and rng.random() < 0.8:
                chosen = procedures[rng.choice(list(procedures))]
                target = chosen if isinstance(chosen, dict) and chosen else data
            key = rng.choice(list(target))
            kind = rng.randrange(5)
            if kind == 0:
                target[key + "x"] = target.pop(key)  # a typo, and a required key gone
            elif kind == 1:
                target[key] = 7
            elif kind == 2:
                target[key] = None
            elif kind == 3:
                del target[key]
            else:
                target["no such key"] = {"a": [1]}
        mutated = type(doc)(data, doc.file, doc.positions, doc.source)
        assert _schema_problems(parts, mutated) == _schema_problems(check_schema, mutated)
    assert parts.checked < 25 * len(names)  # the procedures an edit left alone were not checked again


def test_thousands_of_one_line_entries_are_parsed_in_pieces_of_several():
    text = "ruleset: r\ntitle: T\n" + "".join(f"k{i}: {i}\n" for i in range(2000))
    pieces = Pieces()
    doc = pieces.load(text, "f.yaml")
    whole = load_text(text, "f.yaml")
    assert (doc.data, doc.positions) == (whole.data, whole.positions)
    assert 2000 // 25 <= pieces.parsed <= 2000 // 20
    before = pieces.parsed
    edited = text.replace("k1000: 1000\n", "k1000: 7\n")
    again = pieces.load(edited, "f.yaml")
    assert again.data["k1000"] == 7 and pieces.parsed == before + 1  # the edit parsed its piece alone

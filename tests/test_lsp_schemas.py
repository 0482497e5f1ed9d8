"""The schemas that fit each kind of file: the overlay schema is the ruleset schema's merge-patch form, and
the files rulesmith writes pass the schema their first line names."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest

from interpreter.load.bundled import bundled_ids, rulesets_dir, schema_path
from interpreter.load.yaml import load_text
from interpreter.lsp.overlay_schema import overlay_schema

ROOT = Path(__file__).resolve().parent.parent


def validator(kind: str) -> jsonschema.Draft202012Validator:
    return jsonschema.Draft202012Validator(json.loads(schema_path(f"{kind}.schema.json").read_text(encoding="utf-8")))


def messages(kind: str, text: str) -> list[str]:
    return sorted(e.message for e in validator(kind).iter_errors(load_text(text).data))


def test_the_shipped_overlay_schema_is_the_one_derived_from_the_ruleset_schema():
    ruleset = json.loads(schema_path().read_text(encoding="utf-8"))
    shipped = json.loads(schema_path("overlay.schema.json").read_text(encoding="utf-8"))
    assert shipped == overlay_schema(ruleset), "run: python tools/overlay_schema.py"
    code = "import sys; sys.path.insert(0, 'tools'); import overlay_schema; print(overlay_schema.text(), end='')"
    written = subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT, capture_output=True, text=True)
    assert written.stdout == schema_path("overlay.schema.json").read_text(encoding="utf-8")


@pytest.mark.parametrize("kind", ["ruleset", "overlay", "sheet"])
def test_each_schema_is_a_valid_draft_2020_12_schema(kind):
    jsonschema.Draft202012Validator.check_schema(json.loads(schema_path(f"{kind}.schema.json").read_text()))


def test_an_overlay_may_leave_out_any_key_and_remove_one_with_null():
    assert messages("overlay", "extends: nwod\nruleset: nwod-9again\nconstants:\n  default_again: 9\n") == []
    assert messages("overlay", "extends: lockwood\nruleset: lw\nprocedures:\n  friendly_fire: null\n"
                    "  check:\n    params:\n      mod: {default: 2}\n    samples: null\n") == []
    # the same files against the ruleset schema: the false errors the overlay schema is there to avoid
    assert "'title' is a required property" in messages("ruleset", "extends: nwod\nruleset: x\n")


def test_an_overlay_still_names_its_base_and_id_and_writes_lists_whole():
    assert messages("overlay", "ruleset: x\n") == ["'extends' is a required property"]
    assert messages("overlay", "extends: nwod\nruleset: x\nconstans: {a: 1}\n") == [
        "Additional properties are not allowed ('constans' was unexpected)"]
    # a list replaces the base's whole, so each step in it must be a whole step
    assert messages("overlay", "extends: lockwood\nruleset: x\nprocedures:\n  check:\n    steps:\n      - {sumary: 1}\n")


@pytest.mark.parametrize("ruleset_id", bundled_ids())
def test_a_whole_ruleset_is_a_valid_overlay_and_exported_overlays_pass(ruleset_id, rules, tmp_path):
    data = load_text((rulesets_dir() / f"{ruleset_id}.yaml").read_text(encoding="utf-8")).data
    assert list(validator("overlay").iter_errors({**data, "extends": "elsewhere"})) == []
    out = tmp_path / "house.yaml"
    assert rules("export", ruleset_id, "--overlay", "house", "-o", str(out)).exit_code == 0
    text = out.read_text(encoding="utf-8")
    assert text.startswith(f"# yaml-language-server: $schema={schema_path('overlay.schema.json').resolve()}\n")
    assert messages("overlay", text) == []


@pytest.mark.parametrize("ruleset_id", bundled_ids())
def test_a_new_sheet_names_no_path_of_this_machine_and_passes_the_sheet_schema(ruleset_id, rules, tmp_path):
    out = tmp_path / "ada.yaml"
    assert rules("sheet", "new", ruleset_id, "-o", str(out), "--name", "Ada").exit_code == 0
    text = out.read_text(encoding="utf-8")
    assert "$schema" not in text and str(schema_path("sheet.schema.json").parent) not in text  # it travels
    assert messages("sheet", text) == []
    assert messages("sheet", text.replace("\ntraits:", "\ntrates:")) == [
        "Additional properties are not allowed ('trates' was unexpected)"]


@pytest.mark.parametrize("kind", ["ruleset", "overlay", "sheet"])
def test_rules_schema_prints_each_schema_and_where_it_is_installed(kind, rules):
    args = [kind] if kind != "ruleset" else []
    path = Path(rules("schema", *args, "--path").stdout.strip())
    assert path.is_absolute() and path.resolve() == schema_path(f"{kind}.schema.json").resolve()
    assert json.loads(rules("schema", *args).stdout) == json.loads(path.read_text(encoding="utf-8"))

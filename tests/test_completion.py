"""What Tab offers, asked as the bash and zsh scripts of `rules` ask (fast: no shell; test_completion_shells.py
drives real shells)."""

from __future__ import annotations

from pathlib import Path

import pytest

from interpreter.load.bundled import bundled_ids


@pytest.fixture
def work(tmp_path: Path, monkeypatch) -> Path:
    """A folder with a house rule, a sheet and a subfolder; a ruleset folder with an overlay of its own."""
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "nine.yaml").write_text("extends: nwod\nruleset: nwod-9again\n", encoding="utf-8")
    monkeypatch.setenv("RULESMITH_PATH", str(mine))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    work = tmp_path / "work"
    (work / "sub").mkdir(parents=True)
    (work / "house.yaml").write_text("extends: lockwood\nruleset: lockwood-house\n", encoding="utf-8")
    (work / "sub" / "deep.yaml").write_text("extends: lockwood\nruleset: deep\n", encoding="utf-8")
    (work / "marco.yaml").write_text("ruleset: nwod\nname: Marco\ntraits: {}\n", encoding="utf-8")
    monkeypatch.chdir(work)
    return work


def bash(rules, monkeypatch, line: str) -> list[str]:
    """What the bash script of `rules` receives for a line typed up to the cursor: 'kind,value' each."""
    monkeypatch.setenv("_RULES_COMPLETE", "bash_complete")
    monkeypatch.setenv("RULESMITH_COMPLETION", "2")
    monkeypatch.setenv("COMP_LINE", line)
    monkeypatch.setenv("COMP_POINT", str(len(line)))
    monkeypatch.setenv("COMP_WORDBREAKS", " \t\n\"'><=;|&(:")
    return [line for line in rules().stdout.splitlines() if line]


def test_N1_a_parameter_name_is_offered_with_no_space_after_it(rules, monkeypatch, work):
    assert bash(rules, monkeypatch, "rules run nwod action po") == ["nospace,pool="]


def test_N16_a_value_is_given_as_the_part_after_the_equals_sign_bash_replaces(rules, monkeypatch, work):
    assert bash(rules, monkeypatch, "rules run nwod take_damage amount=1 type=") == [
        "plain,bashing", "plain,lethal", "plain,aggravated"]
    assert bash(rules, monkeypatch, "rules run nwod take_damage type=LE") == ["plain,lethal"]


def test_N12_a_trait_parameter_offers_the_traits(rules, monkeypatch, work):
    assert bash(rules, monkeypatch, "rules run nwod buy trait=Fir") == ["plain,Firearms"]


def test_L1_a_number_parameter_offers_trait_names_when_a_sheet_is_given(rules, monkeypatch, work):
    assert bash(rules, monkeypatch, "rules run lockwood check stat=S") == []
    assert bash(rules, monkeypatch, "rules run lockwood check --sheet b.yaml stat=S") == ["plain,STR"]


def test_ruleset_ids_of_every_folder_then_ruleset_files_and_folders(rules, monkeypatch, work):
    assert bash(rules, monkeypatch, "rules validate ") == [
        *(f"plain,{i}" for i in bundled_ids()), "plain,nwod-9again", "plain,house.yaml", "nospace,sub/"]
    assert bash(rules, monkeypatch, "rules validate sub/") == ["plain,sub/deep.yaml"]
    assert bash(rules, monkeypatch, "rules sheet new n") == ["plain,nwod", "plain,nwod-9again"]


def test_a_sheet_is_completed_where_a_sheet_is_asked_for(rules, monkeypatch, work):
    assert bash(rules, monkeypatch, "rules sheet show ") == ["plain,marco.yaml", "nospace,sub/"]
    assert bash(rules, monkeypatch, "rules odds nwod action --sheet=m") == ["plain,marco.yaml"]


def test_rules_diff_completes_its_rulesets_procedure_and_parameters(rules, monkeypatch, work):
    assert bash(rules, monkeypatch, "rules diff lockwood hou") == ["plain,house.yaml"]
    assert bash(rules, monkeypatch, "rules diff lockwood house.yaml chec") == ["plain,check"]
    assert "nospace,dc=" in bash(rules, monkeypatch, "rules diff lockwood house.yaml check stat=12 ")


def test_zsh_marks_what_takes_no_space(rules, monkeypatch, work):
    monkeypatch.setenv("_RULES_COMPLETE", "zsh_complete")
    monkeypatch.setenv("RULESMITH_COMPLETION", "2")
    monkeypatch.setenv("COMP_WORDS", "rules run nwod action po")
    monkeypatch.setenv("COMP_CWORD", "4")
    assert rules().stdout.splitlines()[:2] == ["nospace", "pool="]


def test_a_script_saved_from_an_older_version_still_gets_what_it_understands(rules, monkeypatch, work):
    monkeypatch.setenv("_RULES_COMPLETE", "bash_complete")
    monkeypatch.setenv("COMP_WORDS", "rules run nwod action po")
    monkeypatch.setenv("COMP_CWORD", "4")
    assert rules().stdout.splitlines() == ["plain,pool="]

"""Completion as bash, zsh and fish really split words: a real shell in a pseudo-terminal, the Tab key pressed.

Each test types into an interactive shell that has loaded `rules`'s completion script as the
README says, then reads back the line being edited (or the list the shell shows). zsh and fish
are tested where they are installed; bash always.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from terminal import Terminal

BIN = str(Path(sys.executable).parent)  # where this environment's `rules` is
pytestmark = pytest.mark.skipif(shutil.which("rules", path=BIN) is None, reason="the rules command is not installed")

NINE_AGAIN = "extends: nwod\nruleset: nwod-9again\nconstants:\n  default_again: 9\n"
HOUSE = "extends: lockwood\nruleset: lockwood-house\nconstants:\n  critwin: 19\n"

SETUP = {
    "bash": ('eval "$(_RULES_COMPLETE=bash_source rules)"; bind "set bell-style none"; '
             'bind -x \'"\\C-t": printf "LINE<%s>\\n" "$READLINE_LINE"\'; echo RE""ADY\r'),
    "zsh": ("autoload -Uz compinit; compinit -u -D; eval \"$(_RULES_COMPLETE=zsh_source rules)\"; "
            "print-line() { print -r -- \"LINE<$BUFFER>\" }; zle -N print-line; bindkey '^T' print-line; "
            "echo RE\"\"ADY\r"),
    "fish": ("_RULES_COMPLETE=fish_source rules | source; "
             "bind \\ct 'echo \"LINE<\"(commandline)\">\"; commandline -f repaint'; echo RE\"\"ADY\r"),
}
ARGV = {"bash": ["bash", "--norc", "--noprofile", "-i"], "zsh": ["zsh", "-f", "-i"], "fish": ["fish", "-N", "-i"]}


@pytest.fixture(params=["bash", "zsh", "fish"])
def shell(request, tmp_path: Path) -> Iterator[Terminal]:
    """An interactive shell with rules's completion loaded, in a folder holding a house rule and a sheet."""
    name = request.param
    if shutil.which(name) is None:
        pytest.skip(f"{name} is not installed")
    work, mine, home = tmp_path / "work", tmp_path / "mine", tmp_path / "home"
    for folder in (work, mine, home):
        folder.mkdir()
    (mine / "nine.yaml").write_text(NINE_AGAIN, encoding="utf-8")
    (work / "house.yaml").write_text(HOUSE, encoding="utf-8")
    (work / "marco.yaml").write_text("ruleset: nwod\nname: Marco\ntraits: {}\n", encoding="utf-8")
    env = {"PATH": BIN + os.pathsep + os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
           "TERM": "xterm", "LANG": "C.UTF-8", "PS1": "$ ", "INPUTRC": "/dev/null", "RULESMITH_PATH": str(mine),
           "XDG_CONFIG_HOME": str(tmp_path / "config"), "XDG_DATA_HOME": str(tmp_path / "data"),
           "RULESMITH_CACHE_DIR": os.environ.get("RULESMITH_CACHE_DIR", str(tmp_path / "cache"))}
    terminal = Terminal(ARGV[name], env, str(work))
    try:
        terminal.type(SETUP[name])
        terminal.until("READY")
        time.sleep(0.3)
        terminal.seen = ""
        yield terminal
    finally:
        terminal.close()


def test_N1_a_parameter_name_takes_its_value_with_no_space_after_the_equals_sign(shell):
    """The contract's example: `po<TAB>5` is `pool=5` (N1: the pool of an nwod action)."""
    shell.type("rules run nwod action po\t5")
    assert shell.line() == "rules run nwod action pool=5"


def test_N16_the_values_of_a_choice_are_listed_after_its_equals_sign(shell):
    """N16: the three damage types."""
    shell.type("rules run nwod take_damage type=\t\t")
    shell.until(r"^(?=.*bashing)(?=.*lethal)(?=.*aggravated)")  # all three listed, in the shell's order
    shell.clear()
    shell.type("rules run nwod take_damage type=le\t")
    assert shell.line().rstrip() == "rules run nwod take_damage type=lethal"


def test_L2_a_flag_completes_to_true(shell):
    """L2: advantage is a flag."""
    shell.type("rules run lockwood check advantage=t\t")
    assert shell.line().rstrip() == "rules run lockwood check advantage=true"


def test_ids_from_every_ruleset_folder_complete(shell):
    shell.type("rules run nwod-9\t")
    assert shell.line().rstrip() == "rules run nwod-9again"


def test_rules_diff_completes_both_rulesets_and_a_procedure(shell):
    shell.type("rules diff nwod ./ho\t")
    assert shell.line().rstrip() == "rules diff nwod ./house.yaml"
    shell.clear()
    shell.type("rules diff lockwood house.yaml che\t")
    assert shell.line().rstrip() == "rules diff lockwood house.yaml check"


def test_a_sheet_option_completes_sheet_files(shell):
    shell.type("rules run nwod action --sheet ma\t")
    assert shell.line().rstrip() == "rules run nwod action --sheet marco.yaml"


def test_sheet_new_offers_ruleset_ids_and_files_not_sheets(shell):
    shell.type("rules sheet new \t\t")
    shown = shell.until(r"lockwood.*?house\.yaml.*?rules sheet new").group(0)
    assert "nwod-9again" in shown and "marco.yaml" not in shown

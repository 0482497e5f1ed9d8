"""Shell completion as bash, zsh and fish split words, in place of click's scripts.

Click's bash script hands Python the words bash made, and bash splits `type=le` into `type`, `=`
and `le`, so neither a value after `NAME=` nor `NAME=` itself completed well (a space followed
`pool=`). Here bash hands over the line itself (COMP_LINE up to COMP_POINT), Python splits it as
the shell reads it, and each completion is cut back to the part bash replaces (what follows the
last of COMP_WORDBREAKS in the word). A completion that ends in `=` or `/` (a parameter's name,
a folder) is marked `nospace`, so the shell adds no space after it: bash by `compopt -o
nospace`, zsh by `compadd -S ''`; fish adds none after `=` and `/` by itself.

Registered (over click's own) when the command line runs in completion mode; see Group.main.
"""

from __future__ import annotations

import os

from click.shell_completion import (
    BashComplete,
    CompletionItem,
    FishComplete,
    ZshComplete,
    add_completion_class,
    split_arg_string,
)

__all__ = ["Bash", "Fish", "Zsh", "register"]

NO_SPACE = ("=", "/")
SCRIPT = "RULESMITH_COMPLETION"  # set by these scripts; one saved from click's before asks as click's did


def _ours() -> bool:
    return os.environ.get(SCRIPT) == "2"

_BASH = """\
%(complete_func)s() {
    local IFS=$'\\n'
    local response completion type value
    response=$(env COMP_LINE="$COMP_LINE" COMP_POINT="$COMP_POINT" COMP_WORDBREAKS="$COMP_WORDBREAKS" \\
RULESMITH_COMPLETION=2 %(complete_var)s=bash_complete "$1")
    COMPREPLY=()
    for completion in $response; do
        IFS=',' read -r type value <<< "$completion"
        case $type in
            dir) compopt -o dirnames ;;
            file) compopt -o default ;;
            nospace) COMPREPLY+=("$value"); compopt -o nospace ;;
            plain) COMPREPLY+=("$value") ;;
        esac
    done
    return 0
}

complete -o nosort -F %(complete_func)s %(prog_name)s
"""

_ZSH = """\
#compdef %(prog_name)s

%(complete_func)s() {
    local -a response plain plain_described joined joined_described
    local type key descr
    (( ! $+commands[%(prog_name)s] )) && return 1
    response=("${(@f)$(env COMP_WORDS="${words[*]}" COMP_CWORD=$((CURRENT-1)) RULESMITH_COMPLETION=2 \\
%(complete_var)s=zsh_complete %(prog_name)s)}")
    for type key descr in ${response}; do
        case $type in
            plain) if [[ $descr == _ ]]; then plain+=("$key"); else plain_described+=("$key:$descr"); fi ;;
            nospace) if [[ $descr == _ ]]; then joined+=("$key"); else joined_described+=("$key:$descr"); fi ;;
            dir) _path_files -/ ;;
            file) _path_files -f ;;
        esac
    done
    (( $#plain_described )) && _describe -V unsorted plain_described -U
    (( $#plain )) && compadd -U -V unsorted -a plain
    (( $#joined_described )) && _describe -V unsorted joined_described -U -S ''
    (( $#joined )) && compadd -U -V unsorted -S '' -a joined
    return 0
}

if [[ $zsh_eval_context[-1] == loadautofunc ]]; then
    %(complete_func)s "$@"
else
    compdef %(complete_func)s %(prog_name)s
fi
"""


def _kind(item: CompletionItem[object]) -> str:
    value = str(item.value)
    return "nospace" if item.type == "plain" and value.endswith(NO_SPACE) else str(item.type)


class Bash(BashComplete):
    """Bash: the line as typed, split here; each completion cut back to the word bash replaces."""

    source_template = _BASH
    head = ""  # the start of the word being completed that bash does not replace (up to a `=` or `:`)

    def get_completion_args(self) -> tuple[list[str], str]:
        if not _ours() or "COMP_LINE" not in os.environ:
            return super().get_completion_args()
        line = os.environ["COMP_LINE"]
        try:
            point = int(os.environ.get("COMP_POINT", len(line)))
        except ValueError:
            point = len(line)
        typed = line[:point]
        words = split_arg_string(typed)
        ends_word = not typed or typed[-1] in " \t\n" and not typed.endswith("\\ ")
        incomplete = "" if ends_word or not words else words.pop()
        breaks = set(os.environ.get("COMP_WORDBREAKS", "\"'><=;|&(:")) - set(" \t\n\"'")
        cut = max((incomplete.rfind(c) for c in breaks), default=-1)
        self.head = incomplete[:cut + 1]
        return words[1:], incomplete

    def format_completion(self, item: CompletionItem[object]) -> str:
        if not _ours():
            return super().format_completion(item)
        value = str(item.value)
        if self.head and value.startswith(self.head):
            value = value[len(self.head):]
        return f"{_kind(item)},{value}"


class Zsh(ZshComplete):
    """Zsh: its own words; a completion ending in `=` or `/` takes no space after it."""

    source_template = _ZSH

    def format_completion(self, item: CompletionItem[str]) -> str:
        if not _ours():
            return super().format_completion(item)
        help_ = item.help or "_"
        value = item.value.replace(":", r"\:") if help_ != "_" else item.value
        return f"{_kind(item)}\n{value}\n{help_}"


class Fish(FishComplete):
    """Fish: click's script; fish itself adds no space after a completion ending in `=` or `/`."""


def register() -> None:
    """Use these in place of click's bash, zsh and fish completion."""
    add_completion_class(Bash, "bash")
    add_completion_class(Zsh, "zsh")
    add_completion_class(Fish, "fish")

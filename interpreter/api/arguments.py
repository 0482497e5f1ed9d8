"""What a caller hands the library, checked before the engine sees it: parameters, given dice, a seed, a sheet.

Every mistake is a ``BadParameter`` (a ``RulesError``) of one line, never a ``TypeError``.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from interpreter.errors import BadParameter, RulesError

if TYPE_CHECKING:
    from interpreter.dice.sources import DiceSource
    from interpreter.sheet.character import Sheet

__all__ = ["arguments", "asked_ruleset", "drawn_seed", "exhausted", "flag", "not_quoted", "ruleset_ref", "seeded",
           "sheet_path", "source", "times"]

SEED_BITS = 31  # a drawn seed is a whole number from 0 to 2**31 - 1: short to copy, the same in every language


def arguments(params: Mapping[str, object] | None, named: Mapping[str, object]) -> dict[str, object]:
    """The parameters given as a mapping and as keywords, as one mapping (a name given twice is an error)."""
    if params is not None and not isinstance(params, Mapping):
        raise BadParameter(f"parameters are a mapping of names to values, not {type(params).__name__}")
    out = dict(params or {})
    for name, value in named.items():
        if name in out:
            raise BadParameter(f"parameter '{name}' is given twice (in the mapping and as a keyword)")
        out[name] = value
    for name in out:
        if not isinstance(name, str):
            raise BadParameter(f"a parameter's name is text, not {name!r}")
    return out


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def source(seed: Any, dice: Any, hint: str | None = None) -> DiceSource:
    """Dice from a seed (random without one) or exactly the given ones; `hint` is added to a mistake about `dice`."""
    from interpreter.dice.sources import GivenSource, RandomSource

    if seed is not None and not _whole(seed):
        raise BadParameter(f"seed= takes a whole number, not {seed!r}")
    if dice is None:
        return RandomSource.seeded(seed)
    if isinstance(dice, (str, bytes)) or not isinstance(dice, Sequence) or not all(map(_whole, dice)):
        raise BadParameter(f"dice= takes the dice to use, a list of whole numbers, not {dice!r}", hint=hint)
    if seed is not None:
        raise BadParameter("give either seed or dice, not both")
    return GivenSource(list(dice))


def drawn_seed() -> int:
    """A seed drawn from the system for a run given neither a seed nor dice, told with the result to replay it."""
    return int.from_bytes(os.urandom(4), "big") >> (32 - SEED_BITS)


def seeded(seed: object, dice: object, hint: str | None = None) -> tuple[DiceSource, int | None]:
    """The dice of one run and the seed they come from: `seed`, one drawn when neither a seed nor dice
    are given, or None for given dice."""
    if seed is None and dice is None:
        seed = drawn_seed()
    given = source(seed, dice, hint)  # (refuses a seed that is not a whole number)
    return given, seed if isinstance(seed, int) else None


def exhausted(dice: DiceSource) -> None:
    """Refuse given dice that a run left over."""
    from interpreter.dice.sources import GivenSource

    if isinstance(dice, GivenSource):
        dice.check_exhausted()


def flag(name: str, value: object) -> bool:
    """An option that is True or False."""
    if not isinstance(value, bool):
        raise BadParameter(f"{name}= takes True or False, not {value!r}")
    return value


def times(value: Any) -> int:
    """How many runs a sample counts."""
    if not _whole(value) or value < 1:
        raise BadParameter(f"times must be a whole number of at least 1, not {value!r}")
    return int(value)


def sheet_path(sheet: str | os.PathLike[str] | Sheet | None) -> str | None:
    """The file of a sheet given as a path or as a sheet read before."""
    from interpreter.sheet.character import Sheet

    if sheet is None:
        return None
    if isinstance(sheet, Sheet):
        if sheet.path is None:
            raise BadParameter("this sheet was not read from a file; give the sheet's path")
        return sheet.path
    if isinstance(sheet, (str, os.PathLike)):
        return os.fspath(sheet)
    raise BadParameter(f"sheet= takes a file's path or a sheet from read_sheet, not {type(sheet).__name__}")


def ruleset_ref(ref: object) -> str:
    """A ruleset's id or path as text."""
    if isinstance(ref, os.PathLike):
        return str(os.fspath(ref))
    if not isinstance(ref, str):
        raise BadParameter(f"a ruleset is an id, a path or a loaded ruleset, not {type(ref).__name__}")
    return ref


def asked_ruleset(ref: object, root: object = None) -> str:
    """The id or file a caller's ruleset reference lets the library load, refused before anything is opened.

    Text is a ruleset id (bundled or in the user's ruleset folders), or a path that lies inside ``root``
    (relative to it, links resolved): text may come from a user, so a path in it is opened only where the
    caller said files may be read.  A ``pathlib.Path`` (any ``os.PathLike``) is a path the caller made, and is
    opened as asked.
    """
    from interpreter.hints import shown
    from interpreter.load.find import find, looks_like_path

    text = ruleset_ref(ref)
    if isinstance(ref, os.PathLike):
        return text
    if not looks_like_path(text):
        find(text, paths=False)  # an id, or one line naming the known ones: no file is looked for
        return text
    if root is None:
        raise BadParameter(f"{shown(text)} is a path given as text, opened only inside a root= folder; nothing was "
                           "opened", hint="give root=FOLDER (the folder it may lie in), or a pathlib.Path to open it "
                                          "as it is")
    if not isinstance(root, (str, os.PathLike)):
        raise BadParameter(f"root= takes a folder's path, not {type(root).__name__}")
    try:
        folder = os.path.realpath(root)
        real = os.path.realpath(os.path.join(folder, text))
    except (OSError, ValueError):
        raise BadParameter(f"{shown(text)} is not a path the system can take; nothing was opened") from None
    if real != folder and not real.startswith(folder.rstrip(os.sep) + os.sep):
        raise BadParameter(f"{shown(text)} lies outside root {shown(os.fspath(root))}; nothing was opened",
                           hint="name a file inside the root folder, or a ruleset id")
    return real


def not_quoted(ref: str, err: RulesError) -> RulesError:
    """The error to raise for a file that failed to load: itself for a ruleset (or a file that is no YAML
    mapping at all, whose errors quote nothing), one line that quotes nothing for any other YAML file (its
    keys would be named in the schema's errors)."""
    from interpreter.errors import RulesetLoadError
    from interpreter.load.find import looks_like_path, not_a_ruleset
    from interpreter.load.yaml import load_file

    if not looks_like_path(ref) or not os.path.isfile(ref):
        return err
    try:
        top = load_file(ref).data
    except RulesetLoadError:
        return err
    if isinstance(top, dict) and ("ruleset" in top or "extends" in top):
        return err
    from interpreter.hints import shown

    return not_a_ruleset(shown(ref), None)

"""Damage tracks of boxes: their marks, the numbers formulas read, the wound penalty, damage and healing.

A box track's marks are a tuple of damage-type numbers, worst first (1 is the worst type the
track lists), with 0 for an empty box. Current/max tracks are plain numbers and need nothing here.
"""

from __future__ import annotations

from typing import Any

from interpreter.ruleset.model import Track

MARKS = "#marks:"  # env prefix for a box track's marks while a procedure runs
EMPTY = "_"  # an empty box of a track drawn as text, as `rules sheet show` draws it


def box_numbers(track: Track, marks: tuple[int, ...]) -> dict[str, object]:
    """The formula names of a box track with these marks."""
    size = len(marks)
    filled = [m for m in marks if m]
    numbers: dict[str, object] = {
        f"{track.name}_size": size,
        f"{track.name}_filled": len(filled),
        f"{track.name}_rightmost": marks[-1] if marks else 0,
        f"{track.name}_full": size > 0 and len(filled) == size,
        f"{track.name}_penalty": penalty(track, marks),
    }
    for index, kind in enumerate(track.types, start=1):
        numbers[f"{track.name}_{kind}"] = sum(1 for m in marks if m == index)
    return numbers


def penalty(track: Track, marks: tuple[int, ...]) -> int:
    """The wound penalty: the entry for the rightmost filled box among the last ones."""
    result = 0
    count = len(track.penalties)
    for i, value in enumerate(track.penalties):
        position = len(marks) - count + i
        if 0 <= position < len(marks) and marks[position]:
            result = value
    return result


def sorted_marks(marks: list[int], size: int) -> tuple[int, ...]:
    """Marks worst first, empty boxes last, cut or padded to the size."""
    filled = sorted(m for m in marks if m)[:size]
    return tuple(filled + [0] * (size - len(filled)))


def damage_marks(track: Track, marks: tuple[int, ...], amount: int, kind: int, temporary: int) -> tuple[tuple[int, ...], int]:
    """Marks after `amount` boxes of damage type `kind` (1 is the worst), and the temporary boxes left."""
    boxes = list(marks)
    size = len(boxes)
    skips_temporary = track.types[kind - 1] in track.temporary_ignored_by
    # past this many boxes nothing more can change: every box is of the worst type
    for _ in range(min(amount, temporary + size * len(track.types) + 1)):
        if temporary > 0 and not skips_temporary:
            temporary -= 1
            continue
        if 0 in boxes:
            boxes[boxes.index(0)] = kind
            boxes = list(sorted_marks(boxes, size))
            continue
        # full: the leftmost box of the least severe type still above the worst is promoted one step
        upgradable = [m for m in boxes if m > 1]
        if upgradable:
            least = max(upgradable)
            boxes[boxes.index(least)] = least - 1
            boxes = list(sorted_marks(boxes, size))
    return tuple(boxes), temporary


def heal_marks(marks: tuple[int, ...], amount: int, kind: int) -> tuple[int, ...]:
    """Marks after clearing up to `amount` boxes of one damage type, rightmost first."""
    boxes = list(marks)
    for _ in range(min(amount, len(boxes))):
        for i in range(len(boxes) - 1, -1, -1):
            if boxes[i] == kind:
                boxes[i] = 0
                break
    return sorted_marks(boxes, len(boxes))


def draw(track: Track, marks: tuple[int, ...]) -> str:
    """A box track drawn with its marks, empty boxes as '_'."""
    return "".join(track.marks[m - 1] if m else EMPTY for m in marks)


def drawable(track: Track) -> bool:
    """Whether the track can be written as one line of text: each mark one character, none of them '_'."""
    return all(len(m) == 1 and m != EMPTY for m in track.marks)


def boxes_written(raw: Any) -> list[Any]:
    """A box track's boxes as the sheet writes them: each entry of a list, or each character of drawn text."""
    if isinstance(raw, str):
        return [None if c == EMPTY else c for c in raw]
    return list(raw or [])


def as_written(track: Track, marks: tuple[int, ...], like: Any) -> Any:
    """Marks written the way the sheet writes this track: drawn text (`*X/__`), a list of its marks, or of type words.

    ``like`` is what the sheet holds now. A list keeps marks when every filled box in it is a
    mark rather than a type word; an empty or absent track is written in type words.
    """
    if isinstance(like, str) and drawable(track):
        return draw(track, marks)
    written = [w for w in boxes_written(like) if w is not None]
    drawn = bool(written) and all(w in track.marks and w not in track.types for w in written)
    labels = track.marks if drawn else track.types
    return [labels[m - 1] if m else None for m in marks]


__all__ = ["EMPTY", "MARKS", "as_written", "box_numbers", "boxes_written", "damage_marks", "draw", "drawable",
           "heal_marks", "penalty", "sorted_marks"]

"""A character sheet as a program reads it: typed fields for traits, derived values, tracks and resources.

``Sheet.as_json()`` gives the shape `rules sheet show --json` prints (docs/json.md); ``str()`` the
lines `rules sheet show` prints.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING

from interpreter.record import field, record
from interpreter.ruleset.model import CompiledRuleset
from interpreter.sheet.view import text, view

if TYPE_CHECKING:
    from interpreter.load.document import Document

__all__ = ["BoxTrack", "MeterTrack", "Resource", "Sheet", "character"]


@record
class BoxTrack:
    """A track of typed boxes: each mark is the damage type in that box (worst first), or None when empty."""

    size: int
    marks: tuple[str | None, ...]
    penalty: int
    drawn: str  # the boxes as `rules sheet show` draws them

    kind = "boxes"


@record
class MeterTrack:
    """A track of a current value under a maximum (hit points)."""

    current: int
    max: int

    kind = "current_max"


@record
class Resource:
    """A resource spent and regained in play (willpower, luck points), with its maximum."""

    value: int
    max: int


@record
class Sheet:
    """A character sheet read and checked against its ruleset's standing rules."""

    ruleset: str
    name: str
    traits: Mapping[str, int]
    derived: Mapping[str, object]
    tracks: Mapping[str, BoxTrack | MeterTrack]
    resources: Mapping[str, Resource]
    state: Mapping[str, object]
    status: tuple[str, ...]
    path: str | None = None  # the file it was read from
    shown: str = field(default="", compare=False, repr=False)

    def as_json(self) -> dict[str, object]:
        """The sheet as `rules sheet show --json` prints it."""
        tracks: dict[str, object] = {}
        for name, track in self.tracks.items():
            if isinstance(track, BoxTrack):
                tracks[name] = {"kind": "boxes", "size": track.size, "marks": list(track.marks),
                                "penalty": track.penalty, "drawn": track.drawn}
            else:
                tracks[name] = {"kind": "current_max", "current": track.current, "max": track.max}
        return {"ruleset": self.ruleset, "name": self.name, "traits": dict(self.traits), "derived": dict(self.derived),
                "tracks": tracks, "resources": {n: {"value": r.value, "max": r.max} for n, r in self.resources.items()},
                "state": dict(self.state), "status": list(self.status)}

    def __str__(self) -> str:
        return self.shown


def character(ruleset: CompiledRuleset, data: Mapping[str, object], doc: Document | None = None, path: str | None = None) -> Sheet:
    """The typed sheet of a sheet's data (refused, as for a run, when it breaks a standing rule)."""
    shown = view(ruleset, data, doc)
    tracks: dict[str, BoxTrack | MeterTrack] = {}
    for name, track in shown["tracks"].items():
        if track["kind"] == "boxes":
            tracks[name] = BoxTrack(track["size"], tuple(track["marks"]), track["penalty"], track["drawn"])
        else:
            tracks[name] = MeterTrack(track["current"], track["max"])
    resources = {name: Resource(r["value"], r["max"]) for name, r in shown["resources"].items()}
    frozen = MappingProxyType
    return Sheet(ruleset.id, str(shown["name"]), frozen(dict(shown["traits"])), frozen(dict(shown["derived"])),
                 frozen(tracks), frozen(resources), frozen(dict(shown["state"])), tuple(shown["status"]), path,
                 text(ruleset, shown))

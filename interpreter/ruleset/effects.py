"""Effects: named changes a ruleset declares once and that reach the rolls of many procedures.

An effect has a flag that switches it on in a run (`param`; also `when` the sheet says so, or the
follow-up of a run whose result says so, `after`), a selector (`reaches`: procedures, tags, named
dice, the names rolls bind, the traits or groups a run is on, the first such roll only) and a
change: to each roll it reaches a reroll, an advantage or disadvantage die, a modifier, a floor;
to each procedure it reaches numbers added to parameters and flags turned on. Compiling a roll
step gives it one dice expression for each set of the effects reaching it that may be on
(`roll_variants`); the roll kind picks among them as the run goes, so traced runs, sampled runs
and exact odds roll the same dice. The changes to parameters are `let` steps a procedure starts
with (ruleset.effect_steps).

A procedure that declares the parameter named by `handled_by` applies the change with its own
steps (a `best_of` of its own, say): the effect then turns that flag on instead of changing its rolls.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from collections.abc import Set as AbstractSet
from types import MappingProxyType
from typing import Any

from interpreter import limits
from interpreter.errors import Location, SchemaViolation, UnknownName
from interpreter.hints import suggest
from interpreter.record import record
from interpreter.ruleset.context import CompileContext, P
from interpreter.ruleset.kind import Kinds, naming, written_rolls
from interpreter.words import value_text


@record
class Effect:
    """One compiled effect (see the module's description)."""

    name: str
    summary: str
    refs: tuple[str, ...]
    param: str | None  # None: switched on by the sheet only (`when` without `param`)
    when: object  # the formula as written (compiled in each procedure that reads the sheet), or None
    after: Mapping[str, str]  # procedure -> the flag value of its result that switches the effect on next
    handled_by: str | None
    procedures: tuple[str, ...] | None
    tags: tuple[str, ...] | None
    dice: tuple[str, ...] | None
    rolls: tuple[str, ...] | None
    first: bool  # the first roll it reaches in a run only (the next roll)
    traits: tuple[str, ...] | None  # rolls of a procedure run on one of these traits (a parameter naming it)
    groups: tuple[str, ...] | None  # ... or on a trait of one of these groups
    members: frozenset[str]  # the traits of those groups
    die: str | None  # advantage | disadvantage
    die_count: int  # how many times the roll is made for the die, the best (or worst) kept
    modifier: int
    floor: int | None
    reroll: int | None  # dice showing this or less are rolled once more
    adds: Mapping[str, int]  # parameter -> the number added to it where a procedure reached starts
    flags: tuple[str, ...]  # flag parameters turned on where a procedure reached starts
    where: Location

    def switch(self) -> str:
        """The formula that says whether it is on in a run: its flag (which `when` turns on too), or the sheet's."""
        if self.param is not None:
            return self.param
        return f"has_sheet and ({when_text(self.when)})"

    def why(self) -> str:
        """What switches it on, in words (the trace says it of each effect that applied)."""
        ways = [f"{self.param}=true"] if self.param is not None else []
        if self.when is not None:
            ways.append(f"the sheet: {when_text(self.when)}")
        return ", or ".join(ways)

    def switch_in(self, spec: Mapping[str, Any], read: AbstractSet[str] | None = None) -> str:
        """`switch`, in a procedure (as written): with a trait or group selector, also whether one of its
        number or trait parameters names such a trait (known when it is given a trait's name, with --sheet);
        of those `read` (the parameters a value is worked out from), when it holds any."""
        parts = [self.switch()]
        named = [p for p, ps in (spec.get("params") or {}).items()
                 if isinstance(ps, Mapping) and ps.get("type") in ("int", "trait")]
        named = [p for p in named if p in read] if read is not None and read & set(named) else named
        declared = {p: (spec.get("params") or {})[p].get("trait") for p in named}  # `trait: PER`: it is PER
        if self.traits is not None:
            parts.append(" or ".join("true" if declared[p] == t else f"{p}_is_{t}" for p in named
                                     for t in self.traits) or "false")
        if self.groups is not None:
            parts.append(" or ".join("true" if declared[p] in self.members else f"{p}_in_{g}" for p in named
                                     for g in self.groups) or "false")
        return " and ".join(f"({part})" for part in parts) if len(parts) > 1 else parts[0]

    def changes_rolls(self) -> bool:
        return self.die is not None or bool(self.modifier) or self.floor is not None or self.reroll is not None

    def selector(self) -> str:
        """The rolls it reaches, in words."""
        parts = [f"{label} {', '.join(names)}" for label, names in (
            ("procedures", self.procedures), ("tags", self.tags), ("dice", self.dice), ("rolls", self.rolls),
            ("traits", self.traits), ("groups", self.groups)) if names is not None]
        if self.first:
            parts.append("the first such roll of a run only")
        return "; ".join(parts) if parts else "every roll"

    def change(self, rolled: str | None = None, better: str = "high") -> str:
        """What it does to a roll it reaches, in words; `rolled` names what the roll rolls (`d20`), and
        `better` says which result is the better (`low` for a roll-under die)."""
        parts = [die_words(self.die, self.die_count, rolled, better)] if self.die else []
        if self.modifier:
            parts.append(f"{self.modifier:+d}")
        if self.reroll is not None:
            parts.append(f"dice showing {self.reroll} or less rolled again")
        if self.floor is not None:
            parts.append(f"at least {self.floor}")
        parts += [f"{name} {number:+d}" for name, number in self.adds.items()]  # parameters or values
        parts += [f"{name} on" for name in self.flags]
        return ", ".join(parts)


_COUNTS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")


def die_words(die: str, count: int, rolled: str | None = None, better: str = "high") -> str:
    """An advantage or disadvantage die in words: `two d20, the higher kept`, `three rolls, the lowest kept`."""
    number = _COUNTS[count] if count < len(_COUNTS) else str(count)
    what = rolled if rolled is not None else "rolls"
    high = (die == "advantage") == (better == "high")
    kept = ("higher" if high else "lower") if count == 2 else ("highest" if high else "lowest")
    return f"{die} die ({number} {what}, the {kept} kept)"


def when_text(when: object) -> str:
    """A `when` as formula text (true and false may be written as YAML booleans)."""
    return value_text(when)


def compile_effects(c: CompileContext, specs: Mapping[str, Any], procedures: Mapping[str, Any],
                    named_dice: Mapping[str, Any], traits: Mapping[str, Any]) -> dict[str, Effect]:
    """The `effects` section compiled; names it refers to are checked against the procedures as written."""
    for proc, pspec in procedures.items():  # `trait: NAME` says which trait a number parameter is (for effects)
        for pname, param in (pspec.get("params") or {}).items():
            if isinstance(param, Mapping) and "trait" in param:
                _known(c, param["trait"], "trait", traits, ("procedures", proc, "params", pname, "trait"))
    out = {}
    for name, spec in specs.items():
        path: P = ("effects", name)
        reaches = spec.get("reaches") or {}
        for i, proc in enumerate(reaches.get("procedures") or ()):
            _known(c, proc, "procedure", procedures, path + ("reaches", "procedures", i))
        for i, die in enumerate(reaches.get("dice") or ()):
            _known(c, die, "named dice", named_dice, path + ("reaches", "dice", i))
        labels = {t.label: key for key, t in traits.items() if t.label}  # `Perception` names PER
        if reaches.get("traits"):
            reaches = {**reaches, "traits": [labels.get(t, t) if t not in traits else t for t in reaches["traits"]]}
        for i, trait in enumerate(reaches.get("traits") or ()):
            _known(c, trait, "trait", {**traits, **labels}, path + ("reaches", "traits", i))
        groups = {t.group: t for t in traits.values() if t.group}
        for i, group in enumerate(reaches.get("groups") or ()):
            _known(c, group, "trait group", groups, path + ("reaches", "groups", i))
        for proc, value in (spec.get("after") or {}).items():
            known = _known(c, proc, "procedure", procedures, path + ("after", proc), key=True)
            if known and value not in (procedures[proc].get("values") or {}):
                c.problem(UnknownName(f"procedure '{proc}' reports no value '{value}'",
                                          c.where(path + ("after", proc)),
                                          suggest(value, list(procedures[proc].get("values") or {}))))
        change = spec["change"]
        modifier = c.number(change, "modifier", path + ("change",)) or 0
        floor = c.number(change, "floor", path + ("change",))
        reroll = c.number(change, "reroll", path + ("change",))
        count = c.number(change, "dice", path + ("change",))
        if count is not None and count < 2:
            c.problem(SchemaViolation(f"an advantage or disadvantage die rolls at least 2 dice, not {count}",
                                      c.where(path + ("change", "dice")), "give dice: 2 or more"))
        if count is not None and "die" not in change:
            c.problem(SchemaViolation("'dice' says how many dice an advantage or disadvantage die rolls, and "
                                      "this change has no die", c.where(path + ("change", "dice"), key=True),
                                      "add die: advantage (or disadvantage), or remove dice"))
        adds = {k: c.number(change["adds"], k, path + ("change", "adds")) or 0 for k in change.get("adds") or {}}
        param = spec.get("param", None if "when" in spec else name)
        if param is None and "after" in spec:
            c.problem(SchemaViolation(f"effect '{name}' has no flag for a follow-up run to take",
                                      c.where(path + ("after",), key=True), "give it a param"))
        out[name] = Effect(
            name, spec.get("summary", ""), tuple(spec.get("refs") or ()), param, spec.get("when"),
            MappingProxyType(dict(spec.get("after") or {})), spec.get("handled_by"), _names(reaches, "procedures"),
            _names(reaches, "tags"), _names(reaches, "dice"), _names(reaches, "rolls"), bool(reaches.get("first")),
            _names(reaches, "traits"),
            _names(reaches, "groups"), frozenset(t for t, trait in traits.items()
                                                 if trait.group in (reaches.get("groups") or ())),
            change.get("die"), max(count or 2, 2),
            modifier, floor, reroll, MappingProxyType(adds), tuple(change.get("flags") or ()), c.where(path, key=True))
    return out


def _names(reaches: Mapping[str, Any], key: str) -> tuple[str, ...] | None:
    return tuple(reaches[key]) if key in reaches else None


def _known(c: CompileContext, name: str, what: str, names: Mapping[str, Any], path: P, key: bool = False) -> bool:
    if name in names:
        return True
    c.problem(UnknownName(f"unknown {what} '{name}'", c.where(path, key=key), suggest(name, list(names)), name=name))
    return False


# -- which procedures and rolls an effect reaches (read from the procedures as written) --------------

def _raw_steps(steps: Any, path: P = ("steps",)) -> Iterator[tuple[P, Mapping[str, Any]]]:
    """Every step as written, nested ones too, in the order written, each with its path in the procedure."""
    for i, step in enumerate(steps or ()):
        if isinstance(step, Mapping):
            yield path + (i,), step
            for key in ("then", "else", "steps"):
                yield from _raw_steps(step.get(key), path + (i, key))


def own_rolls(effect: Effect, proc: str, spec: Mapping[str, object], kinds: Kinds,
              written: list[tuple[P, str, object]] | None = None) -> list[P]:
    """The paths (`steps`, 0, ..., `roll`, NAME) of the procedure's own rolls the effect's selector reaches,
    in the order written (which rolls a step has is its kind's to say; `written`: them all, when known)."""
    if not effect.changes_rolls() or not _selected(effect, proc, spec) or handles(effect, spec):
        return []  # (it reaches no roll of a procedure it does not select: the steps are not read)
    rolls = _written(spec, kinds) if written is None else written
    return [at for at, n, t in rolls if _reaches(effect, proc, spec, n, t)]


def _written(spec: Mapping[str, object], kinds: Kinds) -> list[tuple[P, str, object]]:
    """Every roll of a procedure as written: its path, the name rolled into and the dice."""
    return [(at + (key, n), n, t) for at, step in _raw_steps(spec.get("steps"))
            for key, n, t in written_rolls(kinds, dict(step))]


def reaches_roll(effect: Effect, proc: str, spec: Mapping[str, object], at: P, text: object, kinds: Kinds) -> bool:
    """Whether the effect reaches the roll at `at` (`steps`, ..., `roll`, NAME; its dice as written: `text`) in
    procedure `proc` (as written: `spec`); an effect on the first roll only reaches the first of them."""
    if not _reaches(effect, proc, spec, str(at[-1]), text):
        return False
    return not effect.first or own_rolls(effect, proc, spec, kinds)[:1] == [at]


def _reaches(effect: Effect, proc: str, spec: Mapping[str, object], name: str, text: object) -> bool:
    if not effect.changes_rolls() or not _selected(effect, proc, spec):
        return False
    if effect.dice is not None and str(text).strip() not in effect.dice:
        return False
    if effect.rolls is not None and name not in effect.rolls:
        return False
    return not handles(effect, spec)


def _selected(effect: Effect, proc: str, spec: Mapping[str, Any]) -> bool:
    """Whether the procedure is one the effect's selector picks (by name and tags), and can tell it is on."""
    if effect.procedures is not None and proc not in effect.procedures:
        return False
    if effect.tags is not None and not set(effect.tags) & set(spec.get("tags") or ()):
        return False
    if (effect.traits is not None or effect.groups is not None) and not any(
            isinstance(p, Mapping) and p.get("type") in ("int", "trait") for p in (spec.get("params") or {}).values()):
        return False  # no parameter of it names a trait
    return effect.param is not None or spec.get("sheet") in ("required", "optional")


def handles(effect: Effect, spec: Mapping[str, Any]) -> bool:
    """Whether a procedure (as written) applies the effect's change with its own steps."""
    return effect.handled_by is not None and effect.handled_by in (spec.get("params") or {})


def _reached(effect: Effect, proc: str, spec: Mapping[str, Any], kinds: Kinds,
             written: list[tuple[P, str, object]]) -> bool:
    """Whether one of the procedure's own rolls is reached, it handles the effect's change itself, or takes or
    reports a name the effect adds to or turns on."""
    if own_rolls(effect, proc, spec, kinds, written):
        return True
    params = spec.get("params") or {}
    values = spec.get("values") or {}
    return _selected(effect, proc, spec) and (handles(effect, spec) or any(k in params or k in values
                                                                           for k in effect.adds)
                                              or any(k in params for k in effect.flags))


def takers(effects: Mapping[str, Effect], procedures: Mapping[str, Any], kinds: Kinds) -> dict[str, tuple[Effect, ...]]:
    """For each procedure, the effects whose flag it takes: those reaching it, and those taken by a
    procedure it calls (it passes the flag on)."""
    calling = naming(kinds, "procedure")
    calls = {name: {s[key] for _, s in _raw_steps(spec.get("steps")) for key in calling if isinstance(s.get(key), str)}
             for name, spec in procedures.items()}
    out: dict[str, tuple[Effect, ...]] = {}
    written = {name: _written(spec, kinds) for name, spec in procedures.items()} if effects else {}
    for effect in effects.values():
        taking = {name for name, spec in procedures.items() if _reached(effect, name, spec, kinds, written[name])}
        grew = True
        while grew:
            more = {name for name, callees in calls.items() if name not in taking and callees & taking}
            taking |= more
            grew = bool(more)
        for name in taking:
            out[name] = out.get(name, ()) + (effect,)
    return out


def roll_variants(text: str, effects: tuple[Effect, ...], better: str, one_term: str | None) -> list[str]:
    """The dice expression of a roll for each set of these effects that is on (index: a bit per effect);
    `one_term` is the roll's one dice term written out (its named die followed), for a reroll."""
    out = []
    for mask in range(1 << len(effects)):
        on = [e for i, e in enumerate(effects) if mask >> i & 1]
        out.append(changed(text, on, better, one_term))
    return out


def one_dice_term(text: str, named_dice: Mapping[str, Any]) -> str | None:
    """The text of the one dice term a roll is (a named die followed to it), with no reroll or label of its
    own; None when it is anything else."""
    from interpreter.dice.expr import parse
    from interpreter.dice.tree import Dice, Name

    tree = parse(text).tree
    for _ in range(8):
        if isinstance(tree, Name) and tree.name in named_dice:
            tree = named_dice[tree.name].tree
    if isinstance(tree, Dice) and tree.mods.reroll is None and tree.label is None:
        return tree.text
    return None


def changed(text: str, effects: list[Effect], better: str, one_term: str | None = None) -> str:
    """A roll's dice expression with these effects' changes: the reroll, the die, then the modifiers, then
    the floor."""
    advantage = [e.die_count for e in effects if e.die == "advantage"]
    disadvantage = [e.die_count for e in effects if e.die == "disadvantage"]
    rerolls = [e.reroll for e in effects if e.reroll is not None]
    out = f"{one_term}r<={max(rerolls)}" if rerolls and one_term is not None else text
    if bool(advantage) != bool(disadvantage):  # an advantage and a disadvantage cancel; two of a kind are one
        keep = "kh1" if bool(advantage) == (better == "high") else "kl1"  # die, of the most dice either rolls
        out = "{" + ", ".join([out] * max(advantage or disadvantage)) + "}" + keep
    modifier = sum(e.modifier for e in effects)
    if modifier:
        out = f"({out}) {'+' if modifier > 0 else '-'} {abs(modifier)}"
    floors = [e.floor for e in effects if e.floor is not None]
    if floors:
        out = f"{{{out}, {max(floors)}}}kh1"
    return out


def refuse_many(c: CompileContext, reaching: tuple[Effect, ...], where: Location) -> bool:
    """More effects reach one roll than it is written for: a problem, and False."""
    if len(reaching) <= limits.MAX_EFFECTS_PER_ROLL:
        return True
    c.problem(SchemaViolation(f"{len(reaching)} effects reach this roll ({', '.join(e.name for e in reaching)}); "
                              f"at most {limits.MAX_EFFECTS_PER_ROLL} may", where, "narrow their reaches"))
    return False

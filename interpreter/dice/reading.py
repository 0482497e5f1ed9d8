"""What a roll step's `read` binds: the statistics of its pool, from a roll or as exact odds.

This is the narrow face the procedure engine calls.  `pool_problem` says at load whether an expression
can be a pool; `read_rolled` gives the statistics of a rolled pool from the roll's own dice, and
`read_odds` the exact joint distribution of the statistics (integer weights over one denominator).
Both fold the same statistic definitions (dice.statistic) over the same pool (dice.pool).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from interpreter import limits
from interpreter.dice.additive import additive, convolved
from interpreter.dice.atleast import AtLeast
from interpreter.dice.keep import dropped
from interpreter.dice.pool import Joint, marks_in, pool_odds, symbols_of, walk
from interpreter.dice.statistic import Face, Fold, Statistic, fold_for, fold_rolled
from interpreter.dice.term import TermSpec, parameter_nodes
from interpreter.dice.term import walk as nodes
from interpreter.dice.tree import Dice, DiceGroup, Name, Node
from interpreter.errors import BadParameter

__all__ = ["pool_problem", "read_odds", "read_rolled"]


def pool_problem(tree: Node) -> str | None:
    """Why an expression cannot be a pool to read, or None when it can (a name is checked when it runs)."""
    if isinstance(tree, (Dice, Name)):
        return None
    if not isinstance(tree, DiceGroup):
        return "is not one dice term or a dice group, so it has no pool to read"
    for member in tree.members:
        if isinstance(member, Name):
            return (f"is a group with the name '{member.name}' as a member, so it has no pool to read; a member is "
                    f"a dice term: #{member.name} is one die of a die named '{member.name}', (n)#{member.name} n of them")
        if not isinstance(member, Dice):
            return "is a group whose members are not all dice terms, so it has no pool to read"
        if any(isinstance(n, Dice) for p in parameter_nodes(member) if p is not None for n in nodes(p)):
            return "is a group with a member whose dice count or modifiers roll dice, so it has no pool to read"
    if tree.keep is not None and any(isinstance(n, Dice) for n in nodes(tree.keep[1])):
        return "keeps a rolled number of members, so it has no pool to read"
    return None


def _pool(expr: Any, env: Mapping[str, Any]) -> tuple[Any, Dice | DiceGroup]:
    """The expression that is the pool (a name followed to the dice it stands for) and its tree."""
    for _ in range(limits.MAX_DICE_DEPTH):
        tree = expr.tree
        if not isinstance(tree, Name):
            problem = pool_problem(tree)
            if problem is not None:
                raise BadParameter(f"'{expr.text}' {problem}")
            assert isinstance(tree, (Dice, DiceGroup))
            return expr, tree
        value = env.get(tree.name)
        if not hasattr(value, "tree"):
            raise BadParameter(f"'{tree.name}' is not dice, so it has no pool to read")
        expr = value
    raise BadParameter(f"'{expr.text}': dice expressions refer to each other too deep")


def read_rolled(expr: Any, env: Mapping[str, Any], roll: Any, stats: Sequence[Statistic]) -> tuple[Any, ...]:
    """Every statistic of a rolled pool, read from the dice the roll recorded."""
    owner, tree = _pool(expr, env)
    raw = roll.raw
    if isinstance(tree, Dice):
        term = raw[-1]
        spec, symbols = term.spec, term.spec.symbols
        return fold_rolled(stats, [_die_face(spec, v, symbols) for v in term.kept()], symbols)
    members = raw[len(raw) - len(tree.members):]
    symbols = symbols_of([m.spec for m in members])
    faces: list[Face] = []
    for member in members:
        marks = [0] * len(symbols)
        for v in member.kept():
            for at, n in enumerate(marks_in(member.spec, v, symbols) if not member.spec.compound else ()):
                marks[at] += n
        faces.append((member.result, member.result, tuple(marks)))
    if tree.keep is not None:
        drop = dropped((tree.keep[0], owner.fixed(tree.keep[1], env)), [f[0] for f in faces])
        faces = [f for i, f in enumerate(faces) if not drop or i not in drop]
    return fold_rolled(stats, faces, symbols)


def _die_face(spec: TermSpec, v: int, symbols: Sequence[str]) -> Face:
    """The face of one rolled die of a term (a compounding die's value is recorded, not its index)."""
    if spec.compound:
        return v, spec.gain_of(v), ()
    return spec.value(v), spec.gain[v], marks_in(spec, v, symbols)


def read_odds(expr: Any, env: Mapping[str, Any], stats: Sequence[Statistic], saturate: bool,
              check_only: bool = False) -> tuple[Joint, int]:
    """Integer weights of every combination of the statistics of a pool, and their denominator.

    With `saturate`, a die of endless values is exact below a cap and "at least the cap" above it;
    without, what lies above is cut off (the weights then add up to less than the denominator).  With
    `check_only`, only whether the work estimate refuses it (LimitExceeded; no weights otherwise).
    """
    owner, tree = _pool(expr, env)
    if isinstance(tree, Dice):
        return pool_odds(owner.spec_of(tree, env), stats, saturate, check_only)
    specs = [owner.spec_of(m, env) for m in tree.members if isinstance(m, Dice)]
    symbols = symbols_of(specs)
    folds = [fold_for(s, symbols) for s in stats]
    if tree.keep is None and additive(stats):
        found = _convolved_group(specs, symbols, stats, folds, saturate, check_only)
        if found is not None:
            return found
    members = _member_odds(specs, symbols, saturate)
    table: dict[tuple[Any, ...], int] = {}  # a face's identity -> its index
    faces: list[Face] = []
    kinds: dict[tuple[tuple[int, int], ...], int] = {}  # members that show the same faces as often are one kind
    den = 1
    for dist, member_den in members:
        den *= member_den
        by_face: dict[int, int] = {}
        for face, w in dist.items():
            ident = (int.__int__(face[0]), type(face[0]) is AtLeast, face[2])
            if ident not in table:
                table[ident] = len(faces)
                faces.append(face)
            by_face[table[ident]] = w
        kind = tuple(sorted(by_face.items()))
        kinds[kind] = kinds.get(kind, 0) + 1
    pools = [(c, [dict(kind).get(i, 0) for i in range(len(faces))]) for kind, c in kinds.items()]
    keep = None
    if tree.keep is not None:
        keep = (tree.keep[0], owner.fixed(tree.keep[1], env))
        if keep[1] < 0:
            raise BadParameter(f"'{tree.text}' keeps or drops a negative number of members ({keep[1]})")
    return walk(faces, pools, keep, folds, check_only), den


def _convolved_group(specs: Sequence[TermSpec], symbols: Sequence[str], stats: Sequence[Statistic],
                     folds: Sequence[Fold], saturate: bool, check_only: bool) -> tuple[Joint, int] | None:
    """A group read only for sums, as one convolution (dice.additive); None when a member's values are lumped.

    Read only for what dice add up (not for how many members there are or what each totals), a member of
    symbol dice is its dice, one kind of die thrown as many times; any other member is one die of its own.
    """
    per_die = all(s.kind in ("result", "sum", "total") for s in stats)
    units: list[tuple[dict[Face, int], int]] = []
    den = 1
    whole = []
    for spec in specs:
        if not (per_die and spec.marks is not None and spec.explode is None and spec.keep is None):
            whole.append(spec)
            continue
        weights = spec.draw_weights()
        die: dict[Face, int] = {}
        for i in range(1, spec.sides + 1):
            face = (spec.value(i), spec.value(i), marks_in(spec, i, symbols))
            die[face] = die.get(face, 0) + weights[i]
        units.append((die, spec.count))
        den *= sum(weights) ** spec.count
    for faces, member_den in _member_odds(whole, symbols, saturate):
        if any(type(face[0]) is AtLeast for face in faces):
            return None
        units.append((faces, 1))
        den *= member_den
    return convolved(units, folds, check_only), den


def _member_odds(specs: Sequence[TermSpec], symbols: Sequence[str],
                 saturate: bool) -> list[tuple[dict[Face, int], int]]:
    """Each member's distribution as faces (its total, the symbols its dice show) with integer weights."""
    from interpreter.dice.odds import term_distribution
    from interpreter.dice.saturate import capped_term

    dists = [None if spec.marks is not None else term_distribution(spec) for spec in specs]
    endless = [d for d in dists if d is not None and d.truncated and d.values]
    cap = max((d.tail_start(limits.TRUNCATION_MASS / len(specs)) for d in endless), default=0)
    out: list[tuple[dict[Face, int], int]] = []
    none = (0,) * len(symbols)
    for spec, dist in zip(specs, dists, strict=True):
        if dist is None:
            out.append(_symbol_member(spec, symbols))
            continue
        lumped = False
        if saturate and dist.truncated:
            capped = capped_term(spec, cap)
            if capped is not None and capped.exact:
                dist, lumped = capped, True
        weights = dist.weights()
        assert weights is not None
        found, member_den = weights
        faces: dict[Face, int] = {}
        for v, w in found.items():
            shown: Any = AtLeast(v) if lumped and v == cap else v
            faces[(shown, shown, none)] = w
        out.append((faces, member_den))
    return out


def _symbol_member(spec: TermSpec, symbols: Sequence[str]) -> tuple[dict[Face, int], int]:
    """A member of symbol dice: its total and the symbols of all its dice, by adding up one die at a time."""
    if spec.explode is not None or spec.keep is not None:
        raise BadParameter(f"'{spec.text}': symbol dice in a pool neither explode nor keep or drop dice")
    w = spec.draw_weights()
    die = {(spec.value(i), marks_in(spec, i, symbols)): w[i] for i in range(1, spec.sides + 1) if w[i]}
    acc: dict[tuple[int, tuple[int, ...]], int] = {(0, (0,) * len(symbols)): 1}
    for _ in range(spec.count):
        nxt: dict[tuple[int, tuple[int, ...]], int] = {}
        for (v, m), x in acc.items():
            for (dv, dm), y in die.items():
                key = (v + dv, tuple(a + b for a, b in zip(m, dm, strict=True)))
                nxt[key] = nxt.get(key, 0) + x * y
        acc = nxt
    return {(v, v, m): x for (v, m), x in acc.items()}, sum(w) ** spec.count

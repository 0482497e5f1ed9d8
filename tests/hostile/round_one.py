"""The first round of hostile inputs: YAML rulesets, formulas, dice expressions, procedure arguments, sheets
and the command line itself, generated from a few valid files by mutation.

Every case must end by itself with exit code 1 or 2 and one line on stderr (when a file is involved, one
line per problem, each starting with the file's name), within its CPU and memory bounds, with every file
it was given unchanged.  (See ``case.py`` for how a case is run and checked.)
"""

from __future__ import annotations

from collections.abc import Iterator

from hostile.case import Case

BIG = "9" * 5000

RULESET = """\
ruleset: probe
title: Probe
description: A small ruleset the corpus mutates.
constants:
  base: 10
dice:
  check_die: 1d20
traits:
  STR: {min: 3, max: 18, default: 10}
procedures:
  check:
    summary: Roll a d20 plus a stat against a target.
    params:
      stat: {type: int, default: 0, min: -10, max: 10}
      dc: {type: int, default: 10}
    outcomes:
      success: the total reaches the target
      failure: it does not
    values:
      total: the d20 plus the stat
    steps:
      - roll: {natural: check_die}
      - let: {total: natural + stat}
      - decide:
          - {when: "total >= dc", outcome: success}
          - {outcome: failure}
"""


def yaml_cases() -> Iterator[Case]:
    """Rulesets broken in their YAML or their shape, each validated and run."""
    edits = [
        ("ruleset: probe", "ruleset: probe\nruleset: again"),                 # duplicate key
        ("base: 10", "base: !!python/object:os.system 'echo hi'"),             # a tag
        ("base: 10", "base: &a [*a]"),                                          # an alias before its anchor ends
        ("base: 10", "base: " + "[" * 200 + "]" * 200),                         # deep flow nesting
        ("base: 10", f"base: {BIG}"),                                           # 5,000 digits
        ("base: 10", "base: 0x" + "f" * 40),                                    # beyond 64 bits, hex
        ("base: 10", "base: -9223372036854775809"),
        ("base: 10", "base: .nan"), ("base: 10", "base: .inf"), ("base: 10", "base: 1e400"),
        ("base: 10", "base: [1, 2]"), ("base: 10", "base: {a: 1}"), ("base: 10", "base: null"),
        ("base: 10", "base: yes please"),
        ("max: 18", "max: " + "4" * 400), ("max: 18", "max: -" + "4" * 30), ("min: 3", "min: 99"),
        ("check_die: 1d20", "check_die: 1d0"),
        ("check_die: 1d20", "check_die: " + "1d20+" * 200 + "1"), ("check_die: 1d20", "check_die: 1001d6"),
        ("check_die: 1d20", "check_die: 1d1001"), ("check_die: 1d20", "check_die: [1d20]"),
        ("STR:", "ＳＴＲ:"), ("STR:", "S T R:"), ("STR:", "1STR:"), ("STR:", "'':"),
        ("procedures:", "procedures: []\nextra:"), ("procedures:", "procedures: null\nold:"),
        ("steps:", "steps: 3\n    old:"), ("- roll: {natural: check_die}", "- roll: 3"),
        ("- roll: {natural: check_die}", "- {}"), ("- roll: {natural: check_die}", "- roll: {natural: check_die}\n        let: {}"),
        ("- roll: {natural: check_die}", "- repeat: 1000000\n        steps: []"),
        ("- roll: {natural: check_die}", "- call: check"),
        ("outcome: failure}", "outcome: nothing}"), ("outcome: failure}", "outcome: [failure]}"),
        ("type: int, default: 0", "type: integer, default: 0"), ("type: int, default: 0", f"type: int, default: {BIG}"),
        ("default: 10}", "default: ten}"), ("min: -10, max: 10", "min: 10, max: -10"),
        ("title: Probe", "title: [Probe]"), ("title: Probe", "title: \"\\ud800\""),
        ("ruleset: probe", "%YAML 1.1\n---\nruleset: probe"), ("ruleset: probe", "ruleset: probe\n---\nruleset: two"),
        ("ruleset: probe", "ruleset: Probe Set"), ("ruleset: probe", "ruleset: ../../etc/passwd"),
        ("  base: 10", "\tbase: 10"), ("  base: 10", "  base: 10\n    more: 1"),
        ("steps:", "steps:\n      - let: {x: " + "(" * 40 + "1" + ")" * 40 + "}"),
    ]
    texts = [RULESET.replace(old, new, 1) for old, new in edits]
    texts += [
        "", "\ufeff", "[1, 2, 3]\n", "just text\n", "null\n", "a: b: c\n", "{", "\x00\x01\x02",
        "ruleset: probe\n" + "x:\n" * 3, "- - - - -\n", "&a a: *a\n", "ruleset: probe\n\x07bell: 1\n",
        "a: &a [" + ", ".join(["*a"] * 5) + "]\n",
        "l0: &l0 [x, x, x, x, x, x, x, x, x]\n" + "".join(
            f"l{i}: &l{i} [*l{i - 1}, *l{i - 1}, *l{i - 1}, *l{i - 1}, *l{i - 1}, *l{i - 1}, *l{i - 1}, *l{i - 1}, *l{i - 1}]\n"
            for i in range(1, 9)),
    ]
    for i, text in enumerate(texts):
        data = text.encode("utf-8", "surrogatepass")
        for command in (["validate"], ["run"]):
            args = [*command, "r.yaml"] + (["check", "--seed", "1"] if command == ["run"] else [])
            if command == ["run"] and i % 4:
                continue  # validate for every text, run for a fourth of them
            yield Case("yaml", args, {"r.yaml": data})
    for raw in (b"\xff\xfe\x00", b"ruleset: probe\ntitle: \xc3\x28\n", b"\xef\xbb\xbf\xef\xbb\xbfruleset: x\n",
                b"ruleset: probe\r\ntitle: a\rb\n", b"\x1b[31mred\x1b[0m: 1\n"):
        yield Case("yaml", ["validate", "r.yaml"], {"r.yaml": raw})


FORMULAS = [
    "__import__('os').system('id')", "().__class__.__bases__[0].__subclasses__()", "lambda: 1", "[x for x in range(9)]",
    "open('/etc/passwd')", "exec('1')", "eval('1')", "globals()", "x := 1", "stat.__class__", "stat.real",
    "'a' * 10", "b'x'", "f'{stat}'", "1 if stat else", "stat +", "(stat", "stat)", "stat ** 2", "2 ** 64", "1 << 60",
    "stat @ stat", "stat | 1", "~stat", "not", "and", "stat stat", "1 2", "1d6 + stat", "STAT", "ＳＴＲ + 1", "ﬁ",
    "café", "stat\x00", "", " ", "#", "\\", "stat;1", "import os", "del stat", "yield 1", "await x",
    "[1]*10**9", "{1: 2}", "{1, 2}", "(1, 2)", "stat[0]", "stat[0:1]", "*stat", "**stat", "... + 1",
    "9" * 4500, "1" + "+1" * 400, "-" * 100 + "1", "not " * 100 + "1", "(" * 100 + "1" + ")" * 100,
    "max()", "abs(1, 2)", "unknown_function(1)", "print(1)", "len('ab')", "3.5", "1e3", "None",
]


RUNTIME_FORMULAS = ["9223372036854775807 + 1", "-9223372036854775808 - 1", "1 / 0", "stat // 0", "stat % 0",
                    "9223372036854775807 * 2", "-(-9223372036854775808)", "stat - 9223372036854775807 - 2"]


def formula_cases() -> Iterator[Case]:
    """Formulas that must be refused, placed where a procedure computes a value (some only when it runs)."""
    for i, formula in enumerate(FORMULAS + RUNTIME_FORMULAS):
        escaped = formula.replace("\\", "\\\\").replace('"', '\\"').replace("\x00", "\\0")
        text = RULESET.replace("let: {total: natural + stat}", f'let: {{total: "{escaped}"}}')
        runs = formula in RUNTIME_FORMULAS or i % 4 == 0
        command = ["run", "r.yaml", "check", "--seed", "1"] if runs else ["validate", "r.yaml"]
        yield Case("formula", command, {"r.yaml": text.encode("utf-8")})


DICE = [
    "", "d", "1d", "d0", "1d0", "0d0", "1d-6", "1001d6", "1d1001", "1d1x", "1d6rr<7",
    "1d6cs>=7x>=1", "1d6!!!", "1dF+", "4dF*", "2d6+", "2d6++2", "(2d6",
    "2d6)", "((((((((((((((((((1d6))))))))))))))))))", "1d6 1d6", "1d6,1d6", "1d6;1d6", "x", "nope+1", "1d6+nope",
    "1d6" * 200, "1d6+" * 300 + "1", BIG, f"1d{BIG}", f"{BIG}d6", "__import__", "1d6.5",
    "١d٦", "１d６", "1d6\x00", "1d6\n1d6", "2d6>=", ">=7", "2d6>=7>=1", "1d20kh1kl1", "1d6x>=0", "1d{1,2", "1d{}", "{1d6,", "{}kh1", "1d{" + ",".join(["1"] * 2000) + "}",
]


def dice_cases() -> Iterator[Case]:
    """Dice expressions that must be refused, rolled and asked for exact odds."""
    for i, expr in enumerate(DICE):
        yield Case("dice", ["roll", expr, "--seed", "1"] if i % 2 else ["odds", expr])
    for expr in ["+".join(["1d1000"] * 61), "1000d1000x", "100d1000x+100d1000x", "60d1000"]:
        # (refused when the one-second clock of exact odds runs out, not by an estimate before the work)
        yield Case("dice", ["odds", expr], cpu=2.5, note="refused by the clock")


ARGUMENTS = [
    ("lockwood", "check", ["stat=١٢"]), ("lockwood", "check", ["stat=１２"]), ("lockwood", "check", ["stat=1_000"]),
    ("lockwood", "check", [f"stat={BIG}"]), ("lockwood", "check", ["stat=9223372036854775808"]),
    ("lockwood", "check", ["stat="]), ("lockwood", "check", ["=5"]), ("lockwood", "check", ["stat"]),
    ("lockwood", "check", ["stat=1", "stat=2", "nope=3"]), ("lockwood", "check", ["stat=0x10"]),
    ("lockwood", "check", ["stat=1e3"]), ("lockwood", "check", ["stat=-"]), ("lockwood", "check", ["stat=\x00"]),
    ("lockwood", "check", ["advantage=maybe"]), ("lockwood", "check", ["advantage=" + "y" * 5000]),
    ("lockwood", "nope", []), ("lockwood", "", []), ("lockwood", "__init__", []), ("lockwood", "check\x00", []),
    ("nope", "check", []), ("", "check", []), ("wwn", "attack", ["bonus=1", "ac=10", "damage=rm -rf"]),
    ("wwn", "attack", ["bonus=1", "ac=10", "damage=1d6+__class__"]), ("wwn", "attack", ["bonus=1", "ac=10", "damage=1d0"]),
    ("wwn", "attack", ["bonus=1", "ac=10", f"damage={BIG}"]), ("wwn", "attack", ["bonus=1", "ac=10", "damage=1001d6"]),
    ("wwn", "attack", ["bonus=1", "ac=10"]), ("wwn", "attack", ["bonus=1", "ac=10", "damage=1d6", "shock=-1"]),
    ("wwn", "skill_check", ["skill=expert", "attribute=10", "difficulty=8"]),
    ("nwod", "take_damage", ["amount=1", "type=bashing"]), ("nwod", "take_damage", ["amount=-1", "type=lethal"]),
    ("nwod", "take_damage", ["amount=1001", "type=lethal"]), ("nwod", "take_damage", ["amount=1", "type=fire"]),
    ("nwod", "contested", ["actor=x", "defender=1"]), ("nwod", "extended", ["pool=5", "required=0"]),
    ("nwod", "extended", ["pool=5", f"required={BIG}"]), ("rollunder", "check", ["stat=" + "9" * 20]),
]


def argument_cases() -> Iterator[Case]:
    """Procedure arguments that must be refused, for a run and for exact odds."""
    for i, (ruleset, procedure, params) in enumerate(ARGUMENTS):
        yield Case("arguments", ["run", ruleset, procedure, *params, "--seed", "1"])
        if i % 3 == 0:
            yield Case("arguments", ["odds", ruleset, procedure, *params])


NWOD_SHEET_EDITS = [
    ("  Stamina: 2 ", "  Stamina: 99 "), ("  Stamina: 2 ", "  Stamina: -5 "), ("  Stamina: 2 ", f"  Stamina: {BIG} "),
    ("  Stamina: 2 ", "  Stamina: two "), ("  Stamina: 2 ", "  Stamina: [2] "), ("  Stamina: 2 ", "  Stamina: 2.5 "),
    ("  Stamina: 2 ", "  Stamina: null "), ("  Stamina: 2 ", "  Stamina: true "), ("  Stamina: 2 ", "  Stamina: 0x7fffffffffffffff "),
    ("  Stamina: 2  # Stamina, 1-5\n", ""), ("  Stamina: 2 ", "  Stamina: 2 \n  Stamina: 3 "), ("  Stamina: 2 ", "  Stamnia: 2 "),
    ("temporary_health: 0 ", "temporary_health: -1 "), ("temporary_health: 0 ", f"temporary_health: {10**30} "),
    ("temporary_health: 0 ", "temporary_health: {a: 1} "), ("health: [null, null, null, null, null, null]", "health: 3"),
    ("health: [null, null, null, null, null, null]", "health: [null, null, null, null, null, null, null, null]"),
    ("health: [null, null, null, null, null, null]", "health: [fire, null, null, null, null, null]"),
    ("health: [null, null, null, null, null, null]", "health: {a: 1}"), ("health: [null, null, null, null, null, null]", "health: 'xxx'"),
    ("health: [null, null, null, null, null, null]", "health: [[null]]"), ("willpower: 4", "willpower: 400"),
    ("willpower: 4", "willpower: -1"), ("willpower: 4", "willpower: [4]"), ("morality: 7", "morality: 11"),
    ("traits:\n", "traits: null\nold_traits:\n"), ("traits:\n", "traits: [1]\nold_traits:\n"), ("state:\n", "state: 3\nold_state:\n"),
    ("choices:\n", "choices: []\nold_choices:\n"), ("ruleset: nwod", "ruleset: lockwood"), ("ruleset: nwod", "ruleset: [nwod]"),
    ("ruleset: nwod", "ruleset: " + "n" * 10_000), ("ruleset: nwod", "ruleset: /dev/zero"), ("ruleset: nwod", "ruleset: ."),
    ("ruleset: nwod", "ruleset: \"nwod\\0\""), ("ruleset: nwod", ""), ("name: \"Vera\"", "name: \"Vera\"\nname: again"),
    ("name: \"Vera\"", "name: &a [*a]"), ("name: \"Vera\"", "name: !!binary aGk="), ("name: \"Vera\"", "name: \"Vera\nbroken"),
    ("name: \"Vera\"", "  name: \"Vera\""), ("experience: 0", "experience: -3"),
]


def sheet_cases() -> Iterator[Case]:
    """Sheets broken in their YAML, shape or rules: refused by run, odds and sheet check, never changed."""
    template = NWOD_SHEET
    for i, (old, new) in enumerate(NWOD_SHEET_EDITS):
        assert template.count(old) >= 1, old
        text = template.replace(old, new, 1).encode("utf-8")
        commands = [["run", "nwod", "take_damage", "amount=1", "type=bashing", "--sheet", "s.yaml"]]
        if i % 2 == 0:
            commands.append(["sheet", "check", "s.yaml"])
        if i % 4 == 1:
            commands.append(["odds", "nwod", "take_damage", "amount=1", "type=lethal", "--sheet", "s.yaml"])
        if i % 4 == 2:
            commands.append(["sheet", "show", "s.yaml"])
        for command in commands:
            yield Case("sheets", command, {"s.yaml": text})
    for raw in (b"", b"\x00", b"ruleset: nwod\nname: [", NWOD_SHEET.encode()[:200], b"- a\n- b\n", b"\xff\xfe"):
        yield Case("sheets", ["sheet", "check", "s.yaml"], {"s.yaml": raw})


COMMAND_LINES = [
    ["nope"], ["run"], ["run", "lockwood"], ["odds"], ["validate", "missing.yaml"], ["validate", ""],
    ["validate", "a" * 100_000], ["validate", "a/" * 3000], ["validate", "/dev/null"], ["validate", "/"], ["validate", "."],
    ["describe", "nope"], ["describe", "/dev/zero"], ["roll"], ["roll", "1d6", "--seed", "x"], ["roll", "1d6", "--seed", BIG],
    ["roll", "1d6", "--seed", "1", "--dice", "1"], ["roll", "1d6", "--dice", "x"], ["roll", "1d6", "--dice", "7"],
    ["roll", "1d6", "--dice", "١"], ["roll", "1d6", "--dice", BIG], ["roll", "d6+x", "--set", "x=" + "9" * 30],
    ["roll", "d6+x", "--set", "x"], ["roll", "d6+x", "--set", "=1"], ["run", "lockwood", "check", "--dice", "1,2,3,4,5"],
    ["run", "lockwood", "check", "--seed", "-"], ["odds", "lockwood", "check", "--sheet", "missing.yaml"],
    ["sheet", "check"], ["sheet", "check", "missing.yaml"], ["sheet", "show", "/dev/null"], ["sheet", "new", "nope", "-o", "x.yaml"],
    ["sheet", "new", "lockwood", "-o", "/dev/full/x.yaml"], ["sheet", "new", "lockwood", "-o", "a" * 5000 + ".yaml"],
    ["sheet", "new", "lockwood"], ["sheet", "nope"], ["--nope"], ["run", "--sheet"], ["odds", "3d6", "--nope"],
    ["validate", "fifo.yaml"], ["describe", "fifo.yaml"], ["run", "fifo.yaml", "check"], ["odds", "fifo.yaml", "check"],
    ["sheet", "check", "fifo.yaml"], ["sheet", "show", "fifo.yaml"],
    ["run", "nwod", "take_damage", "amount=1", "type=lethal", "--sheet", "fifo.yaml"],
]


def command_line_cases() -> Iterator[Case]:
    for args in COMMAND_LINES:
        yield Case("command line", args, fifo=any("fifo.yaml" in a for a in args))


NWOD_SHEET = """\
# A World of Darkness character
ruleset: nwod
name: "Vera"
traits:
  Intelligence: 3
  Wits: 3
  Resolve: 2
  Strength: 2
  Dexterity: 3
  Stamina: 2  # Stamina, 1-5
  Presence: 2
  Manipulation: 2
  Composure: 2
  Academics: 2
  Computer: 1
  Crafts: 1
  Investigation: 2
  Medicine: 2
  Occult: 1
  Politics: 1
  Science: 1
  Athletics: 2
  Brawl: 1
  Drive: 1
  Firearms: 2
  Larceny: 0
  Stealth: 1
  Survival: 0
  Weaponry: 0
  Animal_Ken: 0
  Empathy: 1
  Expression: 0
  Intimidation: 0
  Persuasion: 1
  Socialize: 1
  Streetwise: 1
  Subterfuge: 0
choices:
  attribute_priority: ["mental", "physical", "social"]
  skill_priority: ["mental", "physical", "social"]
  specialties: ["Academics: History", "Firearms: Pistol", "Firearms: Rifle"]
  merits: {Contacts: 2, Resources: 2, Allies: 3}
  vice: "Pride"
  virtue: "Humility"
state:
  morality: 7
  experience: 0
  willpower_bought: 0
  willpower_bonus: false
  temporary_health: 0 
  temporary_health_max: 0
  temporary_health_damaged: 0
  health: [null, null, null, null, null, null]
  willpower: 4
"""


def cases() -> list[Case]:
    """Every case of the first round."""
    cases = [*yaml_cases(), *formula_cases(), *dice_cases(), *argument_cases(), *sheet_cases(), *command_line_cases()]
    return [case for case in cases if not any("\x00" in arg for arg in case.args)]  # a NUL cannot be in argv



"""Every fixed limit in one place, so tests can lower them with monkeypatch."""

MAX_FILE_BYTES = 1024 * 1024
MAX_ALIASES = 100
MAX_NODES = 100_000
MAX_DEPTH = 64
MAX_CHAIN = 16  # files in one chain of overlays, the overlay and its bases
MAX_CHAIN_BYTES = 1024 * 1024  # bytes of YAML in one chain of overlays, all its files together

MAX_RECORD_BYTES = 16 * 1024 * 1024  # one record of the parse cache (a document and its positions)
CACHE_KEEP = 256  # records of each kind the parse cache keeps; writing one more removes the oldest
MAX_REPORTED_PROBLEMS = 100  # problems of one command the command line shows; one line counts the rest
MAX_SUGGESTION_WORK = 200_000  # choices the did-you-mean hints of one check weigh together; past it, none
MAX_DECLARED_FILES = 4096  # ruleset-folder files whose declared id one process remembers (the oldest forgotten)

MAX_FORMULA_CHARS = 500
MAX_FORMULA_NODES = 200
MAX_FORMULA_DEPTH = 32
INT_MIN = -(2**63)
INT_MAX = 2**63 - 1

MAX_DICE_CHARS = 500
MAX_DICE_ROLLED = 1000
MAX_FACES = 1000
MAX_DICE_DEPTH = 16
MAX_EXPLOSION_DEPTH = 100

MAX_PROCEDURE_STEPS = 500  # steps one procedure is written with, nested ones included
MAX_PROCEDURE_CHARS = 50_000  # characters of one procedure's steps (keys and texts)
MAX_WRITTEN_LINES = 40_000  # lines of code the steps of one procedure are written as (one way of running it)
MAX_STEPS = 100_000  # steps one sampled run may take
MAX_ODDS_STEPS = 100_000  # world-steps and roll branches exact odds may take (worlds alive at once stay fewer)
MAX_ODDS_SECONDS = 1.0  # CPU time one exact-odds computation may take before it is refused
MAX_COMMAND_SECONDS = 5.0  # CPU time one whole command or call (a sweep, a diff, a validate, a sample) may take
MAX_CHECK_SECONDS = 2.0  # CPU time the language server's check of one open file may take before it is stopped
MAX_RUN_DICE = 100_000  # dice one sampled run may roll
MAX_SAMPLES = 1_000_000  # runs one `sample` may count
MAX_SAMPLE_WORK = 20_000_000  # steps taken and dice rolled by all the runs of one sample together
MAX_LOOP_ITERATIONS = 1000
MAX_EFFECTS_PER_ROLL = 4  # effects that may reach one roll: each set of them is one dice expression (16)
MAX_WORLDS = 50_000  # distinct states exact odds may hold at once (a few KB each)
TRUNCATION_MASS = 1e-15  # per expression or loop; a whole procedure adds up a few of these
MAX_SETTLE_STATES = 5000  # states of one settling loop's chain (each one pass worked out, then a linear solve)
MAX_ODDS_WORK = 3_000_000
MAX_CHART_VALUES = 2_000  # values (bars or points) along one panel of a --plot chart
MAX_ODDS_VALUES = 250_000  # values one exact distribution may have, foreseen from its text before it is built
MAX_ODDS_BITS = 16_000_000

MAX_TRACK_BOXES = 1000  # boxes of one damage track, written in the ruleset or computed for a sheet
MAX_CREATION_DOTS = 10_000  # dots a creation cost that reads `dot` is evaluated for, one sheet and rule
MAX_CREATION_MOVES = 10_000  # one-dot moves `sheet new` tries to meet one budget

MAX_DIFF_CASES = 200  # cases (a procedure at one parameter set) one `rules diff` compares, samples and probes together
MAX_DIFF_PROBES = 24  # cases beyond its samples one procedure may add where the change may show
MAX_SHEET_FIXES = 32  # places `rules diff --sheet` may adapt a character at that one side's rules no longer fit

LOCK_WAIT_SECONDS = 60.0  # how long a write waits for another writer of the same sheet


def whole_number(text: str) -> int | None:
    """The value of text written as a whole number in ASCII digits (an optional sign, no '_'), else None.

    A number beyond 64 bits gives OverflowError before Python converts it, so that a number of
    thousands of digits never reaches int() and its digit limit.
    """
    body = text[1:] if text[:1] in "+-" else text
    if not body or not body.isascii() or not body.isdigit():
        return None
    if len(body.lstrip("0")) > 19:
        raise OverflowError(text)
    value = int(text)
    if not INT_MIN <= value <= INT_MAX:
        raise OverflowError(text)
    return value


OUT_OF_RANGE = f"whole numbers must lie between {INT_MIN} and {INT_MAX} (64 bits)"

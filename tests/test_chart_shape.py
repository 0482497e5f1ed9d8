"""What a chart looks like: the axis scaled to the data, each title once, exact fractions only where exact,
several expressions on one axis, and a diff's sides in fixed colours with numbers in order.

The figure is inspected through matplotlib (its axes' limits and lines), and the SVG and HTML files the
command writes are parsed; the chances they must show come from icepool, independently.
"""

from __future__ import annotations

import os
import re
import subprocess
from fractions import Fraction
from xml.etree import ElementTree

import icepool
import pytest
from helpers import RULES, checkout_env

pytest.importorskip("matplotlib", reason="the charts extra (matplotlib) is part of the test install")

from interpreter.cli.chart_data import Chart, Panel, Series, comparison_chart, expression_chart
from interpreter.cli.charts import figure
from interpreter.cli.compare import Compared
from interpreter.cli.diff_chart import AFTER, BEFORE, _pair_panel, moved
from interpreter.cli.odds_text import View
from interpreter.dice import expr as dice

SVG = "{http://www.w3.org/2000/svg}"
EXPRS = ("3d6", "4d6kh3", "2d10")
ORACLE = (3 @ icepool.d6, icepool.d6.pool(4).highest(3).sum(), 2 @ icepool.d10)


def compared(*exprs: str) -> list[Compared]:
    return [Compared(e, dice.parse(e).distribution({})) for e in exprs]


def tallest(die: icepool.Die) -> float:
    """The largest chance of a die, in percent."""
    return max(float(die.probability(v)) for v in die.outcomes()) * 100


def ytick_labels(svg: ElementTree.Element) -> list[float]:
    """The numbers written along the y axis of the first panel of a matplotlib SVG."""
    axis = next(g for g in svg.iter(f"{SVG}g") if g.get("id") == "matplotlib.axis_2")
    return [float(t.text) for t in axis.iter(f"{SVG}text") if t.text and re.fullmatch(r"[0-9.]+", t.text)]


def test_three_expressions_are_three_lines_on_an_axis_scaled_to_the_tallest(rules, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for name in ("c.png", "c.svg"):
        result = rules("odds", *EXPRS, "--plot", name)
        assert result.exit_code == 0 and result.stdout.rstrip().endswith(f"chart written to {name}")
    assert (tmp_path / "c.png").read_bytes().startswith(b"\x89PNG")
    root = ElementTree.parse(tmp_path / "c.svg").getroot()
    ids = [e.get("id") or "" for e in root.iter()]
    for s, die in enumerate(ORACLE):  # a point of each line at each of its values
        assert len([i for i in ids if i.startswith(f"chart-p0-s{s}-x")]) == len(die.outcomes())
    top = max(tallest(die) for die in ORACLE)  # 4d6kh3 at 13: 13.272%
    ticks = ytick_labels(root)
    assert top <= max(ticks) * 1.25 and max(ticks) <= top * 1.5, ticks  # not an axis to 100%
    fig, _ = figure(comparison_chart(compared(*EXPRS), View()))
    (ax,) = fig.axes
    low, high = ax.get_ylim()
    assert low == 0 and top < high <= top * 1.5
    labelled = [line.get_label() for line in ax.get_lines() if not line.get_label().startswith("_")]
    assert labelled == list(EXPRS)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(EXPRS)


def test_a_3d6_chart_fills_its_axis(tmp_path):
    fig, _ = figure(expression_chart("3d6", dice.parse("3d6").distribution({}), View()))
    (ax,) = fig.axes
    heights = [bar.get_height() for bar in ax.patches]
    assert max(heights) == pytest.approx(tallest(ORACLE[0]))  # 12.5%
    assert max(heights) >= 0.7 * ax.get_ylim()[1]  # the tallest bar reaches well up the axis


def test_cumulative_panels_keep_their_whole_range():
    fig, _ = figure(comparison_chart(compared("1d4", "1d6"), View(at_least=True)))
    chance, at_least = fig.axes
    assert chance.get_ylim()[1] < 40 and at_least.get_ylim()[1] >= 100  # 1/4 at most; at least 1 is 100%


def texts(root: ElementTree.Element) -> list[str]:
    return [t.text or "" for t in root.iter(f"{SVG}text")]


def test_each_title_is_written_once(rules, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert rules("odds", "3d6", "--plot", "one.svg").exit_code == 0
    assert texts(ElementTree.parse(tmp_path / "one.svg").getroot()).count("3d6") == 1
    assert rules("odds", "3d6", "--plot", "one.html").exit_code == 0
    page = (tmp_path / "one.html").read_text(encoding="utf-8")
    # the page's title (the browser tab) and its heading; not again in the picture or over the table
    assert re.findall(r">3d6<", page) == [">3d6<", ">3d6<"]
    assert "<title>3d6</title>" in page and "<h1>3d6</h1>" in page and "<caption>" not in page
    svg = ElementTree.fromstring(page[page.index("<svg"):page.index("</svg>") + 6])
    assert "3d6" not in texts(svg)


def test_an_exact_chart_promises_fractions_and_a_cut_off_one_marks_its_decimals(rules, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert rules("odds", "3d6", "--plot", "exact.html").exit_code == 0
    exact = (tmp_path / "exact.html").read_text(encoding="utf-8")
    assert "as an exact fraction." in exact and "≈" not in exact
    for v in ORACLE[0].outcomes():
        p = Fraction(ORACLE[0].probability(v))
        assert f'data-exact="{p.numerator}/{p.denominator}"' in exact
    assert rules("odds", "5d10x10cs>=8", "--plot", "cut.html").exit_code == 0
    cut = (tmp_path / "cut.html").read_text(encoding="utf-8")
    assert "as an exact fraction" not in cut and "data-exact" not in cut
    assert "a decimal marked ≈" in cut and 'data-decimal="≈0.16807"' in cut  # 7/10 to the fifth: no success
    assert rules("odds", "5d10x10cs>=8", "3d6", "--plot", "both.html").exit_code == 0
    both = (tmp_path / "both.html").read_text(encoding="utf-8")
    assert "exact fraction where the chance is exact, else as a decimal marked ≈" in both
    assert 'data-exact="1/216"' in both and 'data-decimal="≈0.16807"' in both


def test_a_house_only_distribution_is_drawn_in_the_after_colour_with_a_legend():
    only_after = _pair_panel("stunt: outcomes", "outcome", None, {"success": Fraction(1, 2), "failure": Fraction(1, 2)},
                             "base", "house")
    assert [(s.label, s.color) for s in only_after.series] == [("after (house)", AFTER)]
    assert only_after.legend
    fig, _ = figure(Chart("base → house", (only_after,)))
    (ax,) = fig.axes
    assert {bar.get_facecolor() for bar in ax.patches} == {ax.patches[0].get_facecolor()}
    from matplotlib.colors import to_rgba

    assert ax.patches[0].get_facecolor() == to_rgba(f"C{AFTER}") != to_rgba(f"C{BEFORE}")
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["after (house)"]


def test_numeric_categories_of_a_diff_are_in_order():
    before = {0: Fraction(1, 2), 1: Fraction(1, 2)}
    after = {1: Fraction(1, 4), 0: Fraction(1, 4), 3: Fraction(1, 4), -1: Fraction(1, 4)}
    panel = _pair_panel("check: total", "total", before, after, "base", "house")
    assert panel.x == ("-1", "0", "1", "3")
    assert panel.series[0].values == (0, Fraction(1, 2), Fraction(1, 2), 0)
    assert moved(before, after) == pytest.approx(0.5) and moved(before, before) == 0 and moved(None, after) == 1


def test_a_long_panel_title_is_kept_whole_and_bar_labels_stand_apart():
    title = "contested_extended actor=5 defender=4 required=5 max_rolls=3 specialty=true: rolls"
    values = (Fraction(1, 5), Fraction(3, 5), Fraction(1, 5))
    panel = Panel(title, ("1", "2", "3"), (Series("before (a)", values, color=BEFORE),
                                          Series("after (b)", values[::-1], color=AFTER)), "rolls", legend=True)
    other = Panel("x", ("1",), (Series("s", (Fraction(1),)),))
    fig, _ = figure(Chart("a → b", (panel, other)))
    ax = fig.axes[0]
    assert ax.get_title().replace("\n", " ") == title and "\n" in ax.get_title()
    labels = [t for t in ax.texts if t.get_text().endswith("%")]
    assert len(labels) == 6 and all(t.get_rotation() == 90 for t in labels)  # side by side bars: labels upright


def test_the_first_chart_says_it_builds_the_font_cache_and_the_next_does_not(tmp_path):
    """A new, empty matplotlib folder: the first chart builds the font cache (seconds) and says so, once."""
    env = checkout_env({**os.environ, "MPLCONFIGDIR": str(tmp_path / "mpl")})
    note = "note: matplotlib is building its font cache, once; this takes several seconds"
    for first in (True, False):
        done = subprocess.run([*RULES, "odds", "3d6", "--plot", str(tmp_path / f"{first}.svg")], env=env, cwd=tmp_path,
                              capture_output=True, text=True, timeout=300, check=False)
        assert done.returncode == 0, done.stderr
        assert (note in done.stderr) is first, done.stderr
        assert done.stderr.count("\n") == int(first)

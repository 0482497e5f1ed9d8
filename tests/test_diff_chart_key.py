"""The chart of a diff: one key for the two colours under the panels (covering no bar, label or title), a
house-only procedure drawn in the after colour and titled as such, long titles wrapped whole, numeric
values in order with the unset value first."""

from __future__ import annotations

from fractions import Fraction

import pytest

pytest.importorskip("matplotlib")

from interpreter.cli.chart_data import Chart, Panel, Series
from interpreter.cli.charts import figure
from interpreter.cli.diff import compare_all
from interpreter.cli.diff_chart import AFTER, BEFORE, _pair_panel, diff_chart

LONG_ID = ("lockwood-called-shot-with-a-house-rule-name-long-enough-to-need-a-second-line-of-its-own-somewhere"
           "-under-the-chart-and-above-it")
CALLED = f"""extends: lockwood
ruleset: {LONG_ID}
procedures:
  called_shot:
    summary: An attack at a named spot, at -4, that does double damage.
    params:
      attack: {{type: int}}
      defense: {{type: int}}
    samples: [{{attack: 12, defense: 12}}]
    outcomes: {{hit: the shot lands, miss: it does not}}
    values: {{damage: the damage}}
    steps:
      - roll: {{natural: check_die}}
      - decide:
          - {{when: natural + attack - 4 >= defense + 10, outcome: hit}}
          - {{outcome: miss}}
      - let: {{damage: "2 * (natural + attack - 4 - defense - 10) if outcome == hit else 0"}}
"""


@pytest.fixture
def chart(tmp_path):
    house = tmp_path / "called.yaml"
    house.write_text(CALLED, encoding="utf-8")
    return diff_chart(compare_all("lockwood", str(house), None, []))


def test_a_house_only_procedure_is_drawn_in_the_after_colour_under_one_key(chart):
    from matplotlib.colors import to_rgba

    assert chart.key == (("before (lockwood)", BEFORE), (f"after ({LONG_ID})", AFTER))
    [outcomes, damage] = chart.panels
    assert outcomes.title == f"called_shot attack=12 defense=12 (only in {LONG_ID}): outcomes"
    assert damage.x == ("0", "2", "4", "6", "8", "10", "12")
    fig, _ = figure(chart)
    assert all(ax.get_legend() is None for ax in fig.axes)  # no legend over the bars
    [key] = fig.legends
    assert [t.get_text().replace("\n", "") for t in key.get_texts()] == ["before (lockwood)", f"after ({LONG_ID})"]
    assert all(bar.get_facecolor() == to_rgba(f"C{AFTER}") for ax in fig.axes for bar in ax.patches)
    title = fig.get_suptitle()
    assert "\n" in title and "".join(title.split()) == "".join(f"lockwood → {LONG_ID}".split())  # wrapped, whole


def test_the_key_sits_under_the_panels(chart):
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    fig, _ = figure(chart)
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    key = fig.legends[0].get_window_extent(renderer)
    lowest = min(ax.get_tightbbox(renderer).y0 for ax in fig.axes if ax.get_visible())
    assert key.y1 <= lowest + 1  # below every panel, its tick labels and its axis label


def test_an_unset_value_comes_before_the_numbers():
    panel = _pair_panel("p: damage", "damage", {None: Fraction(1, 2), 3: Fraction(1, 2)},
                        {10: Fraction(1, 3), None: Fraction(1, 3), 2: Fraction(1, 3)}, "a", "b")
    assert panel.x == ("null", "2", "3", "10")


def test_a_chart_without_a_key_keeps_the_legend_of_each_panel():
    panel = Panel("p", ("1", "2"), (Series("one", (Fraction(1, 2), Fraction(1, 2))),
                                    Series("two", (Fraction(1, 4), Fraction(3, 4)))))
    fig, _ = figure(Chart("t", (panel,)))
    assert fig.axes[0].get_legend() is not None and not fig.legends

"""A chart as one HTML page that needs nothing else: the SVG drawn inline, and every number's exact fraction.

The page loads no script, font or style from anywhere: it opens offline, from a mail attachment or
a USB stick. Each bar and point of the SVG carries its exact fraction as a tooltip (its `<title>`),
and a table per panel beside the chart lists the same numbers, so they can be read without hovering.
"""

from __future__ import annotations

from fractions import Fraction
from html import escape

from interpreter.cli.chart_data import Chart, Panel, all_exact, exact_text

_CSS = """
body { font-family: system-ui, sans-serif; margin: 1.5em; color: #222; background: #fff; }
h1 { font-size: 1.3em; }
.chart svg { max-width: 100%; height: auto; }
.chart-point:hover { opacity: 0.6; }
.exact { display: flex; flex-wrap: wrap; gap: 1.5em; align-items: flex-start; }
table { border-collapse: collapse; font-size: 0.85em; }
caption { font-weight: bold; text-align: left; padding-bottom: 0.3em; }
th, td { border: 1px solid #ccc; padding: 0.2em 0.5em; text-align: right; }
th { background: #f3f3f3; }
td .fraction, td .decimal { color: #555; font-family: ui-monospace, monospace; }
"""


def _percent(value: object, percent: bool) -> str:
    if value is None:
        return "-"
    number = float(value)  # type: ignore[arg-type]
    return f"{number * 100:.3f}%" if percent else f"{number:.4g}"


def _cell(value: Fraction | float | None, percent: bool) -> str:
    if not percent:  # a mean: its decimal is all there is
        return f"<td>{_percent(value, False)}</td>"
    full = exact_text(value)
    kind = "decimal" if full.startswith("≈") else "exact"
    return (f'<td data-{kind}="{escape(full)}">{_percent(value, True)}'
            f'<br><span class="{"fraction" if kind == "exact" else kind}">{escape(full)}</span></td>')


def table(panel: Panel, index: int, title: str = "") -> str:
    """One panel's numbers as an HTML table: a row per x, a column per series, each chance with its exact
    fraction (or its decimal, marked ≈); the caption is the panel's title unless it is the page's `title`."""
    head = "".join(f"<th>{escape(s.label)}</th>" for s in panel.series)
    rows = []
    for k, x in enumerate(panel.x):
        cells = "".join(_cell(s.values[k], panel.percent) for s in panel.series)
        rows.append(f"<tr><th>{escape(x)}</th>{cells}</tr>")
    caption = f"<caption>{escape(panel.title)}</caption>" if panel.title and panel.title != title else ""
    return (f'<table id="panel-{index}">{caption}'
            f"<thead><tr><th>{escape(panel.x_label)}</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>")


def _how_listed(chart: Chart) -> str:
    exact = all_exact(chart)
    if exact:
        return "as a percentage and as an exact fraction."
    cut = "(odds cut off after endless explosions have no exact fraction)"
    if exact is None:
        return f"as a percentage and as an exact fraction where the chance is exact, else as a decimal marked ≈ {cut}."
    return f"as a percentage and as a decimal marked ≈ {cut}."


def page(chart: Chart, svg: str) -> str:
    """The whole HTML document: the title once, above the chart (the SVG given is drawn without it)."""
    tables = "".join(table(panel, i, chart.title) for i, panel in enumerate(chart.panels))
    note = f"<p>{escape(chart.note)}</p>" if chart.note else ""
    return ("<!DOCTYPE html>\n"
            f'<html lang="en"><head><meta charset="utf-8"><title>{escape(chart.title)}</title>'
            f"<style>{_CSS}</style></head>\n<body>\n<h1>{escape(chart.title)}</h1>{note}\n"
            f'<figure class="chart">{svg}</figure>\n'
            "<p>Hover over a bar or point for its chance; every chance is also listed here, "
            f"{_how_listed(chart)}</p>\n"
            f'<section class="exact">{tables}</section>\n</body></html>\n')


__all__ = ["page", "table"]

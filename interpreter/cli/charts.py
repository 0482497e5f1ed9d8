"""Drawing a Chart with matplotlib (the `charts` extra): SVG and PNG, and the SVG inside one HTML page.

matplotlib writes all three from one figure with no browser, server or network: SVG with its text
kept as text, PNG through its own renderer. Every bar and every point of a line is its own SVG
element with an id, and gets a `<title>` (the tooltip a browser shows on hover) holding its exact
fraction; the HTML page (interpreter.cli.chart_page) adds a table of the same fractions beside it.
"""

from __future__ import annotations

import io
import os
import tempfile
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from interpreter.cli.chart_data import Chart, Panel, exact_text
from interpreter.errors import BadParameter

SVG_NS = "http://www.w3.org/2000/svg"
_STYLE: dict[Any, Any] = {
    "svg.fonttype": "none",  # text stays text: readable by a test, selectable in a browser
    "svg.hashsalt": "rulesmith",  # the same chart gives the same file
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
}
_CURVE_STYLES = ("--", ":", "-.")


def require() -> None:
    """Refuse at once, with the command that helps, when the plotting library is not installed."""
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise BadParameter("--plot needs the plotting library matplotlib, which is not installed",
                           hint="install it with: pip install 'rulesmith[charts]' (from a checkout: "
                                "pip install '.[charts]')") from None


def _label(value: Any, percent: bool) -> str:
    if value is None:
        return "-"
    return f"{float(value) * 100:.3f}%" if percent else f"{float(value):.4g}"


def _short(value: Any, percent: bool) -> str:
    """A bar's own label: one decimal (the exact chance is in its tooltip)."""
    if value is None:
        return ""
    return f"{float(value) * 100:.1f}%" if percent else f"{float(value):.3g}"


def tip(panel: Panel, series: str, x: str, value: Any) -> str:
    """The text of one bar or point: where it is, its percentage (or number) and its exact fraction."""
    where = f"{panel.title}: {series} at {panel.x_label}={x}" if panel.x_label else f"{panel.title}: {series} {x}"
    return f"{where}: {_label(value, panel.percent)} = {exact_text(value)}"


def _color(index: int) -> str:
    """The index-th colour of the plotting library's colour cycle, the same for bars and lines."""
    return f"C{index % 10}"


def _draw_panel(ax: Any, panel: Panel, p: int, tips: dict[str, str]) -> None:
    positions = list(range(len(panel.x)))
    bars = [s for s in panel.series if not s.line]
    width = 0.8 / max(len(bars), 1)
    scale = 100.0 if panel.percent else 1.0
    for j, series in enumerate(bars):
        offset = (j - (len(bars) - 1) / 2) * width
        heights = [0.0 if v is None else float(v) * scale for v in series.values]
        drawn = ax.bar([x + offset for x in positions], heights, width * 0.95, label=series.label, color=_color(j))
        for k, patch in enumerate(drawn.patches):
            gid = f"chart-p{p}-s{j}-x{k}"
            patch.set_gid(gid)
            tips[gid] = tip(panel, series.label, panel.x[k], series.values[k])
        if len(panel.x) * len(bars) <= 16:  # few bars: the percentage is written on each
            ax.bar_label(drawn, labels=[_short(v, panel.percent) for v in series.values], fontsize=7, padding=2)
    lines = [s for s in panel.series if s.line]
    for j, series in enumerate(lines, start=len(bars)):
        style = _CURVE_STYLES[(j - len(bars)) % len(_CURVE_STYLES)] if bars else "-"
        known = [(x, float(v) * scale) for x, v in zip(positions, series.values, strict=True) if v is not None]
        ax.plot([x for x, _ in known], [y for _, y in known], style, label=series.label, linewidth=1.5, color=_color(j))
        for k, value in enumerate(series.values):
            if value is None:
                continue
            (dot,) = ax.plot([k], [float(value) * scale], "o", color=_color(j), markersize=3.5)
            gid = f"chart-p{p}-s{j}-x{k}"
            dot.set_gid(gid)
            tips[gid] = tip(panel, series.label, panel.x[k], value)
    ax.set_title(panel.title)
    step = max(1, len(panel.x) // 20)  # at most about twenty labels under an axis
    ax.set_xticks(positions[::step], [panel.x[i] for i in positions[::step]],
                  rotation=30 if max((len(x) for x in panel.x), default=0) > 6 else 0)
    if panel.x_label:
        ax.set_xlabel(panel.x_label)
    ax.set_ylabel("chance (%)" if panel.percent else "mean")
    if panel.percent:
        ax.set_ylim(0, 105)
    if len(panel.series) > 1:
        ax.legend(fontsize=7, frameon=False)


def figure(chart: Chart) -> tuple[Any, dict[str, str]]:
    """The matplotlib Figure of a chart, and the tooltip of every bar and point by its SVG id."""
    from matplotlib.figure import Figure

    count = len(chart.panels)
    cols = 1 if count == 1 else 2
    rows = (count + cols - 1) // cols
    fig = Figure(figsize=(7.0 if cols == 1 else 11.0, 0.6 + 3.4 * rows), layout="constrained")
    tips: dict[str, str] = {}
    axes = fig.subplots(rows, cols, squeeze=False)
    for p, panel in enumerate(chart.panels):
        _draw_panel(axes[p // cols][p % cols], panel, p, tips)
    for extra in range(count, rows * cols):
        axes[extra // cols][extra % cols].set_visible(False)
    fig.suptitle(chart.title + (f"\n({chart.note})" if chart.note else ""))
    return fig, tips


def _with_titles(svg: bytes, tips: dict[str, str]) -> str:
    """The SVG with a <title> (a hover tooltip) as the first child of every element named in `tips`."""
    ElementTree.register_namespace("", SVG_NS)
    ElementTree.register_namespace("xlink", "http://www.w3.org/1999/xlink")
    root = ElementTree.fromstring(svg)
    for element in root.iter():
        text = tips.get(element.get("id", ""))
        if text is not None:
            title = ElementTree.Element(f"{{{SVG_NS}}}title")
            title.text = text
            element.insert(0, title)
            element.set("class", "chart-point")
    return ElementTree.tostring(root, encoding="unicode")


def render(chart: Chart, fmt: str) -> bytes:
    """The chart as the bytes of an .svg, .png or .html file."""
    import matplotlib

    with matplotlib.rc_context(_STYLE):
        fig, tips = figure(chart)
        buffer = io.BytesIO()
        if fmt == "png":
            fig.savefig(buffer, format="png", dpi=110, metadata={"Software": None})
            return buffer.getvalue()
        fig.savefig(buffer, format="svg", metadata={"Date": None})
    svg = _with_titles(buffer.getvalue(), tips)
    if fmt == "svg":
        return ('<?xml version="1.0" encoding="utf-8" standalone="no"?>\n' + svg + "\n").encode("utf-8")
    from interpreter.cli.chart_page import page

    return page(chart, svg).encode("utf-8")


def write_chart(chart: Chart, path: str, fmt: str) -> None:
    """Draw the chart and write it to `path` atomically: a partly written picture is never left behind."""
    from interpreter.sheet.changes import made

    data = render(chart, fmt)
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    try:
        handle, temp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as err:
        raise BadParameter(f"--plot: cannot write {path}: {err.strerror or err}") from None
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(temp, 0o666 & ~mask)  # as an ordinary new file would be, not the temporary file's 0600
        os.replace(temp, target)
        made(path)
    except OSError as err:
        Path(temp).unlink(missing_ok=True)
        raise BadParameter(f"--plot: cannot write {path}: {err.strerror or err}") from None


__all__ = ["figure", "render", "require", "tip", "write_chart"]

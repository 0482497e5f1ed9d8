"""Drawing a Chart with matplotlib (the `charts` extra): SVG and PNG, and the SVG inside one HTML page.

matplotlib writes all three from one figure with no browser, server or network: SVG with its text
kept as text, PNG through its own renderer. Every bar and every point of a line is its own SVG
element with an id, and gets a `<title>` (the tooltip a browser shows on hover) holding its exact
fraction; the HTML page (interpreter.cli.chart_page) adds a table of the same fractions beside it.
"""

from __future__ import annotations

import io
import os
import sys
import tempfile
import textwrap
from fractions import Fraction
from pathlib import Path
from typing import Any
from xml.etree import ElementTree

from interpreter import limits
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
                           hint="install matplotlib (pip install matplotlib), or, in the checkout, "
                                "the charts extra: pip install '.[charts]'") from None


def _label(value: Fraction | float | None, percent: bool) -> str:
    if value is None:
        return "-"
    return f"{float(value) * 100:.3f}%" if percent else f"{float(value):.4g}"


def _short(value: Fraction | float | None, percent: bool) -> str:
    """A bar's own label: one decimal (the exact chance is in its tooltip)."""
    if value is None:
        return ""
    return f"{float(value) * 100:.1f}%" if percent else f"{float(value):.3g}"


def tip(panel: Panel, series: str, x: str, value: Fraction | float | None, title: str = "") -> str:
    """The text of one bar or point: where it is, its percentage (or number) and its exact fraction (or its
    decimal, marked ≈, where the chance is not exact); `title` is the chart's, which a panel of that title omits."""
    head = f"{panel.title}: " if panel.title and panel.title != title else ""
    where = f"{head}{series} at {panel.x_label}={x}" if panel.x_label else f"{head}{series} {x}"
    if not panel.percent:
        return f"{where}: {_label(value, False)}"
    full = exact_text(value)
    return f"{where}: {_label(value, True)} {full if full.startswith('≈') else '= ' + full}"


def _color(index: int) -> str:
    """The index-th colour of the plotting library's colour cycle, the same for bars and lines."""
    return f"C{index % 10}"


def top_of(panel: Panel) -> float:
    """The tallest bar or highest point of a panel, as drawn (a chance in percent)."""
    scale = 100.0 if panel.percent else 1.0
    return max((float(v) * scale for s in panel.series for v in s.values if v is not None), default=0.0)


def _bars(ax: Any, panel: Panel, p: int, title: str, tips: dict[str, str]) -> bool:
    """Draw the bar series side by side; whether their labels stand upright (they need more room above)."""
    positions = list(range(len(panel.x)))
    bars = [s for s in panel.series if not s.line]
    width = 0.8 / max(len(bars), 1)
    scale = 100.0 if panel.percent else 1.0
    upright = len(bars) > 1 or len(panel.x) > 8  # side by side, level labels would run into each other
    for j, series in enumerate(bars):
        offset = (j - (len(bars) - 1) / 2) * width
        heights = [0.0 if v is None else float(v) * scale for v in series.values]
        color = _color(j if series.color is None else series.color)
        drawn = ax.bar([x + offset for x in positions], heights, width * 0.95, label=series.label, color=color)
        for k, patch in enumerate(drawn.patches):
            gid = f"chart-p{p}-s{j}-x{k}"
            patch.set_gid(gid)
            tips[gid] = tip(panel, series.label, panel.x[k], series.values[k], title)
        if len(panel.x) * len(bars) <= 16:  # few bars: the percentage is written on each
            ax.bar_label(drawn, labels=[_short(v, panel.percent) for v in series.values], fontsize=7, padding=2,
                         rotation=90 if upright else 0)
    return bool(bars) and upright and len(panel.x) * len(bars) <= 16


def _draw_panel(ax: Any, panel: Panel, p: int, tips: dict[str, str], chart: Chart, width: int) -> None:
    title = chart.title
    positions = list(range(len(panel.x)))
    bars = [s for s in panel.series if not s.line]
    scale = 100.0 if panel.percent else 1.0
    upright = _bars(ax, panel, p, title, tips)
    lines = [s for s in panel.series if s.line]
    for j, series in enumerate(lines, start=len(bars)):
        style = _CURVE_STYLES[(j - len(bars)) % len(_CURVE_STYLES)] if bars else "-"
        color = _color(j if series.color is None else series.color)
        known = [(x, float(v) * scale) for x, v in zip(positions, series.values, strict=True) if v is not None]
        ax.plot([x for x, _ in known], [y for _, y in known], style, label=series.label, linewidth=1.5, color=color)
        for k, value in enumerate(series.values):
            if value is None:
                continue
            (dot,) = ax.plot([k], [float(value) * scale], "o", color=color, markersize=3.5)
            gid = f"chart-p{p}-s{j}-x{k}"
            dot.set_gid(gid)
            tips[gid] = tip(panel, series.label, panel.x[k], value, title)
    if panel.title and panel.title != title:  # a panel that is the whole chart is titled once, above it
        ax.set_title("\n".join(textwrap.wrap(panel.title, width)))
    step = max(1, len(panel.x) // 20)  # at most about twenty labels under an axis
    ax.set_xticks(positions[::step], [panel.x[i] for i in positions[::step]],
                  rotation=30 if max((len(x) for x in panel.x), default=0) > 6 else 0)
    if panel.x_label:
        ax.set_xlabel(panel.x_label)
    ax.set_ylabel("chance (%)" if panel.percent else "mean")
    if panel.percent:  # scaled to the tallest bar, with room above it for its label
        ax.set_ylim(0, max(top_of(panel), 0.01) * (1.3 if upright else 1.12))
    if (len(panel.series) > 1 or panel.legend) and not chart.key:  # (a chart's key says it once for all)
        ax.legend(fontsize=7, frameon=False)


def figure(chart: Chart, titled: bool = True) -> tuple[Any, dict[str, str]]:
    """The matplotlib Figure of a chart, and the tooltip of every bar and point by its SVG id.

    `titled=False` leaves the chart's title (and note) out of the picture, for a page that writes it above.
    """
    from matplotlib.figure import Figure

    count = len(chart.panels)
    cols = 1 if count == 1 else 2
    rows = (count + cols - 1) // cols
    fig = Figure(figsize=(7.0 if cols == 1 else 11.0, 0.6 + 3.4 * rows), layout="constrained")
    tips: dict[str, str] = {}
    axes = fig.subplots(rows, cols, squeeze=False)
    for p, panel in enumerate(chart.panels):
        _draw_panel(axes[p // cols][p % cols], panel, p, tips, chart, 70 if cols == 1 else 50)
    for extra in range(count, rows * cols):
        axes[extra // cols][extra % cols].set_visible(False)
    if titled:  # wrapped, never cut
        head = [chart.title] + ([f"({chart.note})"] if chart.note else [])
        fig.suptitle("\n".join(line for text in head for line in textwrap.wrap(text, 80 if cols == 1 else 120)))
    if chart.key:  # under the panels, where it covers no bar, label or title
        from matplotlib.patches import Patch

        handles = [Patch(color=_color(color), label="\n".join(textwrap.wrap(label, 60))) for label, color in chart.key]
        fig.legend(handles=handles, loc="outside lower center", ncols=len(handles), frameon=False, fontsize=8)
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


def _font_cache_note() -> None:
    """A note on stderr when matplotlib is about to build its font cache (once, for several seconds)."""
    import matplotlib

    if "matplotlib.font_manager" in sys.modules:
        return
    try:
        built = any(Path(matplotlib.get_cachedir()).glob("fontlist-v*.json"))
    except OSError:
        built = False
    if not built:
        from interpreter.cli.output import echo

        echo("note: matplotlib is building its font cache, once; this takes several seconds", err=True)


def render(chart: Chart, fmt: str) -> bytes:
    """The chart as the bytes of an .svg, .png or .html file."""
    import matplotlib

    _font_cache_note()
    with matplotlib.rc_context(_STYLE):
        fig, tips = figure(chart, titled=fmt != "html")
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


def _refuse_crowded(chart: Chart, path: str) -> None:
    """Refuse, before any drawing, a chart with more points along one panel than limits.MAX_CHART_VALUES:
    the plotting library's work grows with each bar, and a picture of more cannot be read anyway."""
    most = max((len(panel.x) for panel in chart.panels), default=0)
    if most > limits.MAX_CHART_VALUES:
        raise BadParameter(f"--plot: {path} would draw {most:,} values in one panel, more than the "
                           f"{limits.MAX_CHART_VALUES:,} a chart draws",
                           hint="give --csv (or --json) for every value, or plot fewer dice")


def write_chart(chart: Chart, path: str, fmt: str, replace: bool = False) -> None:
    """Draw the chart and write it to `path` atomically: a partly written picture is never left behind.
    Unless `replace` (--force), a file that appeared at `path` while the chart was drawn is kept: the
    chart is linked into place, which fails rather than replace what is there."""
    from interpreter.sheet.changes import made

    _refuse_crowded(chart, path)
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
        if replace:
            os.replace(temp, target)
        else:
            _place_new(temp, target, data)
        made(path)
    except FileExistsError:
        from interpreter.hints import shown

        raise BadParameter(f"--plot: {shown(path)} appeared while the chart was drawn; nothing was written",
                           hint="give --force to replace it, or choose another name") from None
    except OSError as err:
        raise BadParameter(f"--plot: cannot write {path}: {err.strerror or err}") from None
    finally:
        Path(temp).unlink(missing_ok=True)


def _place_new(temp: str, target: Path, data: bytes) -> None:
    """Put the written chart at `target` only if nothing is there (FileExistsError otherwise): a hard link,
    or where the file system has none, a file created exclusively (never through a link)."""
    try:
        os.link(temp, target, follow_symlinks=False)
        return
    except FileExistsError:
        raise
    except OSError:
        pass  # no hard links here
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o666)
    with os.fdopen(fd, "wb") as out:
        out.write(data)


__all__ = ["figure", "render", "require", "tip", "top_of", "write_chart"]

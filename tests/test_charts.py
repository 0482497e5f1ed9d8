"""Charts (--plot): the SVG's structure parsed, the PNG read back, and the HTML page opened in a real headless browser.

The numbers a chart must show come from the library's own exact odds, computed here beside it;
the browser test is skipped only where Debian's chromium and its driver are not installed (CI
installs them).
"""

from __future__ import annotations

import io
from fractions import Fraction
from pathlib import Path
from xml.etree import ElementTree

import icepool
import pytest
from browser import Browser, missing
from helpers import odds

pytest.importorskip("matplotlib", reason="the charts extra (matplotlib) is part of the test install")
from PIL import Image

SVG = "{http://www.w3.org/2000/svg}"
COMPARED = ("3d6", "4d6kh3", "2d10")
HOUSE = "extends: nwod\nruleset: nwod-9again\nconstants:\n  default_again: 9\n"


def fraction(p: Fraction | float) -> str:
    """How a chart writes a chance in full: a fraction, or all of a float's digits marked ≈ where the odds were cut off."""
    return f"{p.numerator}/{p.denominator}" if isinstance(p, Fraction) else f"≈{p:.12g}"


def told(p: Fraction | float) -> str:
    """What follows the percentage in a tooltip: '= 1/8' where exact, '≈0.125' where not."""
    return f"= {fraction(p)}" if isinstance(p, Fraction) else fraction(p)


def sweep_fractions() -> list[str]:
    """Every outcome's exact chance across pool=1..10 of nwod action that is possible somewhere: what the page lists."""
    out = []
    for pool in range(1, 11):
        got = odds("nwod", "action", {"pool": pool})
        out += [fraction(p) for o, p in got.outcomes.items() if o != "dramatic_failure"]
    return out


@pytest.fixture
def pictures(rules, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "house.yaml").write_text(HOUSE, encoding="utf-8")
    for args in (["odds", "nwod", "action", "pool=1..10", "--plot", "p.html"],
                 ["diff", "nwod", "house.yaml", "action", "pool=5", "--plot", "d.svg"],
                 ["odds", "nwod", "action", "pool=5", "--at-least", "--plot", "o.png"],
                 ["odds", *COMPARED, "--plot", "c.html"]):
        result = rules(*args)
        assert result.exit_code == 0, result.stderr
        assert result.stdout.rstrip().endswith(f"chart written to {args[-1]}")
    return tmp_path


def non_blank(png: bytes) -> tuple[tuple[int, int], float]:
    """A PNG's size and the share of its pixels that are not white."""
    image = Image.open(io.BytesIO(png)).convert("L")
    white = image.histogram()[255]
    return image.size, 1 - white / (image.size[0] * image.size[1])


def test_the_diff_svg_has_a_bar_with_its_exact_chance_for_every_outcome_and_value_before_and_after(pictures):
    root = ElementTree.parse(pictures / "d.svg").getroot()
    assert root.tag == f"{SVG}svg"
    titles = {t.text for t in root.iter(f"{SVG}title")}
    texts = " ".join(t.text or "" for t in root.iter(f"{SVG}text"))
    assert "nwod → nwod-9again" in texts and "before (nwod)" in texts and "after (nwod-9again)" in texts
    before, after = odds("nwod", "action", {"pool": 5}), odds(str(pictures / "house.yaml"), "action", {"pool": 5})
    for name in ("exceptional_success", "success", "failure"):
        for side, got in (("before (nwod)", before), ("after (nwod-9again)", after)):
            p = got.outcomes[name]
            assert f"action pool=5: outcomes: {side} at outcome={name}: {float(p) * 100:.3f}% {told(p)}" in titles
    for k in range(5):  # the successes panel: bars of both distributions
        p = after.values["successes"][k]
        assert (f"action pool=5: successes: after (nwod-9again) at successes={k}: {float(p) * 100:.3f}% "
                f"{told(p)}") in titles
    # every bar is an element of its own, found by its id
    ids = [e.get("id") for e in root.iter() if (e.get("id") or "").startswith("chart-p")]
    assert len(ids) == len(set(ids)) == len(titles)


def test_the_png_is_a_picture_of_the_asked_size_and_not_blank(pictures):
    data = (pictures / "o.png").read_bytes()
    assert data.startswith(b"\x89PNG\r\n\x1a\n")
    (width, height), ink = non_blank(data)
    assert width > 600 and height > 300 and ink > 0.02


def test_a_chart_of_an_unknown_kind_is_a_usage_mistake_and_writes_nothing(rules, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = rules("odds", "nwod", "action", "pool=5", "--plot", "p.gif")
    assert result.exit_code == 2 and "--plot writes .svg, .png or .html, not 'p.gif'" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_refused_odds_leaves_no_picture(rules, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = rules("odds", "nwod", "action", "pool=x", "--plot", "p.svg")
    assert result.exit_code == 1 and list(tmp_path.iterdir()) == []


@pytest.mark.skipif(missing() is not None, reason=str(missing()))
def test_the_html_page_shows_every_exact_chance_in_a_real_browser(pictures, tmp_path):
    page = pictures / "p.html"
    html = page.read_text(encoding="utf-8")
    for fetching in ('src="', 'href="http', "<script", "<link", "@import", "url(http"):  # nothing to fetch from anywhere
        assert fetching not in html, fetching
    browser = Browser(tmp_path / "profile")
    try:
        browser.open(page)
        assert browser.script("return document.title") == "nwod action, pool from 1 to 10"
        assert browser.css_count("figure.chart svg") == 1
        # a tooltip on every point: 3 outcome lines and the mean of successes, at 10 pools each
        assert browser.css_count(".chart-point") == 40
        assert browser.script("return document.querySelectorAll('.chart-point > title').length") == 40
        assert browser.css_count("section.exact table") == 2
        shown = browser.text()
        for exact in sweep_fractions():
            assert exact in shown, exact
        tip = browser.script("return document.querySelector('#chart-p0-s1-x4 > title').textContent")
        success = odds("nwod", "action", {"pool": 5}).outcomes["success"]
        assert tip == f"outcomes: success at pool=5: {float(success) * 100:.3f}% = {fraction(success)}"
        (width, height), ink = non_blank(browser.screenshot())
        assert width >= 1000 and height >= 600 and ink > 0.03
        # several expressions: one chart of a line each, a table of every chance as an exact fraction
        browser.open(pictures / "c.html")
        assert browser.script("return document.title") == "3d6, 4d6kh3, 2d10"
        assert browser.css_count("figure.chart svg") == 1 and browser.css_count("section.exact table") == 1
        oracle = (3 @ icepool.d6, icepool.d6.pool(4).highest(3).sum(), 2 @ icepool.d10)
        assert browser.css_count(".chart-point") == sum(len(die.outcomes()) for die in oracle)
        shown = browser.text()
        assert shown.count("3d6, 4d6kh3, 2d10") == 1  # the title once: the heading, not again in the picture
        for die in oracle:
            for v in die.outcomes():
                assert fraction(Fraction(die.probability(v))) in shown
        cells = browser.script("return [...document.querySelectorAll('#panel-0 tbody tr')].map("
                               "r => [...r.children].map(c => c.dataset.exact || c.textContent))")
        assert [int(row[0]) for row in cells] == list(range(2, 21))
        for row in cells:
            for die, cell in zip(oracle, row[1:], strict=True):
                p = Fraction(die.probability(int(row[0])))
                assert cell == (fraction(p) if p else "-")
        tip = browser.script("return document.querySelector('#chart-p0-s1-x11 > title').textContent")
        p = Fraction(oracle[1].probability(13))  # the shared axis runs from 2: its 12th value is 13
        assert tip == f"4d6kh3 at value=13: {float(p) * 100:.3f}% = {fraction(p)}"
        _, ink = non_blank(browser.screenshot())
        assert ink > 0.03
        # the SVG of the diff opens in the browser as it is, and draws its bars
        browser.open(pictures / "d.svg")
        assert browser.script("return document.querySelectorAll('title').length") > 20
        _, ink = non_blank(browser.screenshot())
        assert ink > 0.03
    finally:
        browser.close()


def test_the_chart_module_draws_with_matplotlib_and_the_page_needs_nothing_else():
    """The page is one file: no script, stylesheet or font comes from elsewhere."""
    from interpreter.cli.chart_data import Chart, Panel, Series
    from interpreter.cli.charts import render

    chart = Chart("t", (Panel("p", ("a", "b"), (Series("s", (Fraction(1, 3), Fraction(2, 3))),), "x"),))
    page = render(chart, "html").decode()
    assert "<script" not in page and "<link" not in page and "@import" not in page
    assert page.count("1/3") >= 2 and page.count("2/3") >= 2  # in the tooltip and in the table
    assert Path

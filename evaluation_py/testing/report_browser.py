"""The report as a browser lays it out: headless Chromium opens a copy of ``index.html`` with a script that
measures every image and figure, and prints the page with the measurements written into it.

Chromium runs as its own process (a real browser, real layout); the page is a copy in another folder
beside copies of the figures, so the report folder itself is never changed.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

RESULT_ID = "report-browser-check"
WIDTH, HEIGHT = 1280, 900

# Written into the page: after load (images decoded), every image's natural size and box, and whether its
# figure, a table's scroll box or the page is wider than the space it has.
_SCRIPT = """<script>
window.addEventListener('load', function () {
  var body = document.body.getBoundingClientRect();
  var images = Array.prototype.map.call(document.images, function (img) {
    var r = img.getBoundingClientRect();
    var fig = img.closest('figure');
    var f = fig ? fig.getBoundingClientRect() : r;
    return {src: img.getAttribute('src'), complete: img.complete, natural_width: img.naturalWidth,
            natural_height: img.naturalHeight, width: r.width, height: r.height,
            inside_figure: r.left >= f.left - 0.5 && r.right <= f.right + 0.5,
            figure_inside_page: f.left >= body.left - 0.5 && f.right <= body.right + 0.5,
            figure_scroll_width: fig ? fig.scrollWidth : 0, figure_client_width: fig ? fig.clientWidth : 0};
  });
  var boxes = Array.prototype.map.call(document.querySelectorAll('div.scroll'), function (d) {
    var r = d.getBoundingClientRect();
    return {inside_page: r.left >= body.left - 0.5 && r.right <= body.right + 0.5};
  });
  var out = document.createElement('pre');
  out.id = '%s';
  out.textContent = JSON.stringify({images: images, table_boxes: boxes,
    page_scroll_width: document.documentElement.scrollWidth, viewport_width: window.innerWidth,
    page_height: document.documentElement.scrollHeight});
  document.body.appendChild(out);
});
</script>""" % RESULT_ID

# Chromium draws a headless screenshot at most this tall: a longer page is cut there.
SCREENSHOT_MAX_HEIGHT = 16000


def chromium() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    raise FileNotFoundError("no chromium on PATH (Debian: apt-get install chromium)")


def _run(args: list[str], timeout: int) -> subprocess.CompletedProcess:
    argv = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
            f"--window-size={WIDTH},{HEIGHT}", "--virtual-time-budget=20000", *args]
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, check=False)


def measure_report(index: str | os.PathLike, screenshot: str | os.PathLike | None = None,
                   timeout: int = 120) -> dict:
    """Open a copy of the report ``index`` in headless Chromium and return what the page measured
    (``images``: one dict per image; ``table_boxes``; ``page_scroll_width``, ``viewport_width``,
    ``page_height``). ``screenshot``: also write a PNG of the whole page there."""
    index = Path(index)
    with tempfile.TemporaryDirectory(prefix="report-browser-") as tmp:
        copy = Path(tmp) / "report"
        shutil.copytree(index.parent, copy)
        page = copy / "browser_check.html"
        text = index.read_text(encoding="utf-8")
        page.write_text(text.replace("</body>", _SCRIPT + "</body>", 1), encoding="utf-8")
        proc = _run(["--dump-dom", page.as_uri()], timeout)
        found = re.search(r'<pre id="%s">(.*?)</pre>' % RESULT_ID, proc.stdout, re.S)
        if not found:
            raise RuntimeError(f"chromium printed no measurements for {index} (exit {proc.returncode}):\n"
                               f"{proc.stderr[-2000:]}")
        import html

        result = json.loads(html.unescape(found.group(1)))
        if screenshot is not None:
            height = min(int(result["page_height"]) + 50, SCREENSHOT_MAX_HEIGHT)
            shot = _run([f"--window-size={WIDTH},{height}", f"--screenshot={Path(screenshot).resolve()}",
                         copy.joinpath("index.html").as_uri()], timeout)
            if not Path(screenshot).is_file():
                raise RuntimeError(f"chromium wrote no screenshot (exit {shot.returncode}): {shot.stderr[-2000:]}")
        return result


def layout_problems(result: dict) -> list[str]:
    """What is wrong in ``measure_report``'s result: images that did not load, images wider than their
    figure, figures or tables outside the page, a page wider than the window."""
    problems = []
    for img in result["images"]:
        if not img["complete"] or img["natural_width"] == 0:
            problems.append(f"{img['src']}: did not load")
        if not img["inside_figure"] or img["figure_scroll_width"] > img["figure_client_width"] + 1:
            problems.append(f"{img['src']}: wider than its figure")
        if not img["figure_inside_page"]:
            problems.append(f"{img['src']}: its figure runs out of the page")
    problems += [f"table {i}: runs out of the page" for i, b in enumerate(result["table_boxes"]) if not b["inside_page"]]
    if result["page_scroll_width"] > result["viewport_width"]:
        problems.append(f"the page scrolls sideways ({result['page_scroll_width']} px > {result['viewport_width']} px)")
    return problems

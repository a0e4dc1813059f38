"""A small progress bar on stderr: done/total, failures, rate, ETA; throttled; silent when total is 0 or disabled.

It runs inside `dbt build`, whose threads print their own lines meanwhile: the bar is therefore never
redrawn in place (a carriage return would splice it into dbt's next line) but written as whole lines,
stamped like dbt's own (UTC `HH:MM:SS`), each in one write.
"""
from __future__ import annotations

import sys
import time
from typing import Callable, Optional, TextIO


def _fmt_duration(s: float) -> str:
    if s != s or s == float("inf"):
        return "--:--"
    s = int(round(s))
    h, rem = divmod(s, 3600)
    m, sec = divmod(rem, 60)
    return f"{h}:{m:02d}:{sec:02d}" if h else f"{m:02d}:{sec:02d}"


def write_line(text: str, stream: Optional[TextIO] = None) -> None:
    """One whole line, stamped like dbt's own (UTC `HH:MM:SS`), in one write."""
    stream = stream if stream is not None else sys.stderr
    stream.write(f"{time.strftime('%H:%M:%S', time.gmtime())}  {text}\n")
    stream.flush()


# Before this many results or seconds a rate (and the ETA from it) says nothing: they are left out.
RATE_AFTER_N = 20
RATE_AFTER_S = 10.0


class Progress:
    """`update(n, failed=k)` as work finishes (k of the n failed), `close()` at the end (or use as a context manager).

    A line is written at the first update, then at most every `log_interval_s`, and a final one on close
    (`close(final=...)`: that text instead of the bar).
    """

    def __init__(self, total: int, desc: str = "", enabled: bool = True, stream: Optional[TextIO] = None,
                 log_interval_s: float = 10.0, width: int = 24, clock: Callable[[], float] = time.monotonic):
        self.total = int(total)
        self.desc = desc
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = bool(enabled) and self.total > 0
        self.width = width
        self.done = 0
        self.failed = 0
        self._interval = log_interval_s
        self._clock = clock
        self._t0 = clock()
        self._last = float("-inf")
        self._closed = False

    def line(self) -> str:
        elapsed = max(self._clock() - self._t0, 1e-9)
        rate = self.done / elapsed
        left = self.total - self.done
        eta = left / rate if rate > 0 else float("inf")
        frac = min(1.0, self.done / self.total) if self.total else 1.0
        filled = int(frac * self.width)
        bar = "#" * filled + "." * (self.width - filled)
        head = f"{self.desc} " if self.desc else ""
        failed = f" ({self.failed} failed)" if self.failed else ""
        if self.done < RATE_AFTER_N and elapsed < RATE_AFTER_S:
            return f"{head}[{bar}] {self.done}/{self.total}{failed} elapsed {_fmt_duration(elapsed)}"
        return (f"{head}[{bar}] {self.done}/{self.total}{failed} {rate:.1f}/s "
                f"elapsed {_fmt_duration(elapsed)} ETA {_fmt_duration(eta if left > 0 else 0)}")

    def update(self, n: int = 1, failed: int = 0) -> None:
        self.done += n
        self.failed += failed
        if not self.enabled:
            return
        now = self._clock()
        if now - self._last >= self._interval:
            self._last = now
            self._draw()

    def _draw(self, text: Optional[str] = None) -> None:
        write_line(text or self.line(), self.stream)

    def close(self, final: Optional[str] = None, draw: bool = True) -> None:
        """The last line (`final`, or the bar); `draw=False`: none (the caller writes its own)."""
        if self.enabled and draw and not self._closed:
            self._draw(final)
        self._closed = True

    def __enter__(self) -> "Progress":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

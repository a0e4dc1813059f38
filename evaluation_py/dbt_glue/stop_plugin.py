"""A dbt-duckdb plugin (profiles.yml, `plugins:` of the output) that makes SIGTERM stop a build as Ctrl-C does.

The evaluation runs in dbt's worker threads, where no signal handler can be set, and Python's default
SIGTERM ends the process at once: the answers of the last second unstored, no line saying what is
left. dbt-duckdb creates its plugins in a worker thread, but calls `configure_cursor` for every
connection it opens, and dbt opens one on its main thread before any model runs (`before_run`: the
on-run-start hooks). There SIGTERM is routed into the path Ctrl-C takes (running.interrupt): dbt's
KeyboardInterrupt handling, whose events the evaluation's callback watches. The callback is
registered here too, so it is in place before the first evaluation model starts.
"""
from __future__ import annotations

from dbt.adapters.duckdb.plugins import BasePlugin

from ..running import interrupt


class Plugin(BasePlugin):
    def configure_cursor(self, cursor):
        if interrupt.route_sigterm_to_ctrl_c():
            interrupt.watch_dbt()

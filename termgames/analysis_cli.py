"""``termgames analyse FILE [--level LEVEL] [--json]`` (and ``analyze``): every move of a record, valued.

Imported only when the command runs (``termgames --help`` stays fast).  The analysis is worked out by
:func:`termgames.analysis_run.analyse_match`, with rich's progress bar on standard error when that is a terminal
(never with ``--json``), and kept in the record's ``analysis`` section (atomically, under the record's lock), so
the next run reads it back instead.  A record that is not the player's to write (a sample that ships with
termgames, a read-only or another user's file) is never written: the analysis is printed, and one line says it
was not kept.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from .analysis import Analysis, analysis_json, analysis_text
from .analysis_run import AnalysisCancelled, analyse_match, analysis_level, check_analysable, stored_analysis
from .cli_base import fail, load_record, say
from .errors import RuleError
from .untrusted import printable, safe_json


def warn(text: str) -> None:
    print(f"termgames: {printable(text, keep_newlines=False)}", file=sys.stderr)


def analyse_command(file: Path, level: str | None, as_json: bool) -> None:
    from . import records

    match = load_record(file)
    try:
        if level is not None:
            level = analysis_level(match.game.descriptor, level)
        check_analysable(match)
    except RuleError as error:
        fail(str(error))
    analysis, why = stored_analysis(match, level)
    if analysis is None:
        if why:
            warn(why)
        analysis = _work_out(match, level, progress_shown=not as_json and sys.stderr.isatty())
        refused = records.not_yours_to_write(file)
        if refused:
            warn(f"the analysis is not kept: {file} is {refused}")
        else:
            try:
                records.save_analysis(file, match, analysis_json(analysis))
            except records.RecordError as error:
                warn(str(error))
    if as_json:
        print(safe_json(analysis.json()))
        return
    say(analysis_text(analysis, match.game.title))


def _work_out(match: Any, level: str | None, progress_shown: bool) -> Analysis:
    if not progress_shown:
        try:
            return analyse_match(match, level)
        except RuleError as error:
            fail(str(error))
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("analysing"), BarColumn(), MofNCompleteColumn(), TextColumn("moves"), TimeElapsedColumn(),
        console=Console(stderr=True), transient=True,
    ) as bar:
        task = bar.add_task("", total=len(match.moves))
        try:
            return analyse_match(match, level, progress=lambda done, total: bar.update(task, completed=done))
        except (RuleError, AnalysisCancelled) as error:
            fail(str(error))



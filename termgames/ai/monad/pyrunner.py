"""Runs a bot file's ``turn(observation)`` in a process of its own, speaking JSON lines to termgames.

termgames (:class:`~termgames.ai.monad.adapters.PythonFileBot`) runs this file
with its own Python and the standard library only (importing termgames would
cost every bot its start-up)::

    python -P pyrunner.py BOT_FILE SEARCH_PATH

``SEARCH_PATH`` is termgames' ``sys.path`` (``os.pathsep``-joined), so a bot
imports here what it could import inside termgames; the bot's own folder
comes first.  The runner then answers, one JSON line each, on the stdout it
was given:

* ``{"ready": true}`` once the file is loaded, or ``{"load_error": TEXT}``
  (then it exits);
* for each observation line: ``{"commands": VALUE}`` (what ``turn`` returned),
  ``{"error": TEXT}`` when ``turn`` raised, whatever it raised
  (``SystemExit`` and ``KeyboardInterrupt`` too: the seat loses that turn,
  the match goes on), or ``{"garbage": TEXT}`` when the value cannot be sent.

The bot never sees the protocol's streams: its ``print`` goes to stderr
(termgames keeps the tail for crash reports) and its stdin is empty.  Time
limits are termgames' business: it skips a late answer and stops a runner
that owes three.
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import os
import sys
from collections.abc import Callable
from typing import Any, BinaryIO

#: Longest error text sent (an exception's text is the bot's and may be anything).
MAX_TEXT = 1000


def _text(error: BaseException) -> str:
    try:
        said = str(error)
    except Exception:  # a hostile __str__
        said = ""
    text = f"{type(error).__name__}: {said}" if said else type(error).__name__
    return text[:MAX_TEXT]


def _plain(value: Any) -> Any:
    """A Command (``termgames.rules.monad.Command``) as its list; anything else unknown cannot be sent."""
    as_list = getattr(value, "as_list", None)
    if callable(as_list):
        return as_list()
    raise TypeError(f"a command is a list, an object or a text, not {type(value).__name__}")


def _load(path: str) -> Callable[[dict[str, Any]], Any]:
    """The ``turn`` callable the file defines: a function, or the method of an instance of its class."""
    module_name = "termgames_monad_bot"
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise LoadError("not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module  # dataclasses and pickling look their module up there
    try:
        spec.loader.exec_module(module)
    except BaseException as error:  # SystemExit and KeyboardInterrupt too: one line, not a traceback
        raise LoadError(_text(error)) from None
    function: Any = getattr(module, "turn", None)  # the bot author's, typed by the guide only
    if callable(function) and not inspect.isclass(function):
        return function
    for value in vars(module).values():
        if inspect.isclass(value) and value.__module__ == module_name and callable(getattr(value, "turn", None)):
            try:
                instance: Any = value()  # the bot author's class
            except BaseException as error:
                raise LoadError(f"{value.__name__}(): {_text(error)}") from None
            return instance.turn  # callable: checked above
    raise LoadError("defines no turn(observation) function and no class with a turn method")


class LoadError(Exception):
    pass


def _protocol_streams() -> tuple[BinaryIO, BinaryIO]:
    """Our own copies of stdin and stdout; the bot's stdin becomes empty and its stdout goes to stderr."""
    observations = os.fdopen(os.dup(0), "rb")
    answers = os.fdopen(os.dup(1), "wb")
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    sys.stdin = open(os.devnull, encoding="utf-8")  # noqa: SIM115 -- the bot's for the process's life
    sys.stdout = sys.stderr
    return observations, answers


def main(argv: list[str]) -> None:
    path, search = argv[1], argv[2] if len(argv) > 2 else ""
    observations, answers = _protocol_streams()

    def send(message: dict[str, Any]) -> None:
        answers.write(json.dumps(message, separators=(",", ":"), default=_plain).encode("utf-8") + b"\n")
        answers.flush()

    # Our own observations carry whatever counts the game reached: no digit limit on reading them.
    if hasattr(sys, "set_int_max_str_digits"):
        sys.set_int_max_str_digits(0)
    sys.path[:] = [os.path.dirname(os.path.abspath(path))] + [entry for entry in search.split(os.pathsep) if entry]
    try:
        turn = _load(path)
    except LoadError as error:
        send({"load_error": str(error)})
        return
    send({"ready": True})
    for line in observations:
        observation = json.loads(line)
        try:
            value = turn(observation)
        except BaseException as error:  # the seat loses this turn, whatever the bot raised
            send({"error": _text(error)})
            continue
        try:
            send({"commands": value})
        except (TypeError, ValueError, RecursionError) as error:
            send({"garbage": str(error)[:MAX_TEXT]})


if __name__ == "__main__":
    main(sys.argv)

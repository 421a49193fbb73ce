"""The screens' common base: ``self.app`` typed as the termgames app instead of Textual's ``App[Any]``."""

from __future__ import annotations

from typing import TYPE_CHECKING, TypeVar

from textual.screen import ModalScreen, Screen

if TYPE_CHECKING:
    from textual import getters

    from ..app import TermgamesApp

ResultT = TypeVar("ResultT")


class AppScreen(Screen[ResultT]):
    """A screen of the termgames app: ``self.app`` is a :class:`~termgames.app.TermgamesApp`.

    Only a declaration for the type checker (Textual declares its own ``app``
    the same way): at run time ``app`` stays Textual's property, which checks
    nothing, so a test's stand-in App may show the screen too.
    """

    if TYPE_CHECKING:
        app = getters.app(TermgamesApp)


class AppModalScreen(ModalScreen[ResultT]):
    """A modal screen of the termgames app (see :class:`AppScreen`)."""

    if TYPE_CHECKING:
        app = getters.app(TermgamesApp)

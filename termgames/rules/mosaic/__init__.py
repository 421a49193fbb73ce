"""Mosaic (Lindsey Spratt, 1992).

``game.py`` has the states, ``view.py`` what a seat sees, ``rules_text.py`` the rules.
"""

from .board import Region, regions, scores
from .game import Mosaic, MosaicState, building_options
from .notation import Edge, Pass, Place, Take, parse_move
from .tiles import Pos, Tile, deal, tile_set, tile_text
from .view import MosaicStep, MosaicView

__all__ = [
    "Edge",
    "Mosaic",
    "MosaicState",
    "MosaicStep",
    "MosaicView",
    "Pass",
    "Place",
    "Pos",
    "Region",
    "Take",
    "Tile",
    "building_options",
    "deal",
    "parse_move",
    "regions",
    "scores",
    "tile_set",
    "tile_text",
]

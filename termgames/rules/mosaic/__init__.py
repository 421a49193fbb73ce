"""Mosaic (Lindsey Spratt, 1992): see ``game.py`` for the states, ``rules_text`` for the rules."""

from .board import Region, regions, scores
from .game import Mosaic, MosaicState, MosaicStep, MosaicView, building_options
from .notation import Edge, Pass, Place, Take, parse_move
from .tiles import Pos, Tile, deal, tile_set, tile_text

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

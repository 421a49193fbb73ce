"""Tournaments for people: pairing (:mod:`.pairing`) and standings (:mod:`.standings`), pure Python.

The server's side (tables, rounds on the server's timer, forfeits, ratings, the store) is
:mod:`termgames.server.tournaments`; the rules of each format, as players read them, are docs/tournaments.md.
"""

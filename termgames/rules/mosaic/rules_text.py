"""The rules of Mosaic as ``termgames rules mosaic`` and the help screen show them."""

from __future__ import annotations

from .tiles import WINNING_SCORES


def rules_markdown() -> str:
    two, three, four = WINNING_SCORES[2], WINNING_SCORES[3], WINNING_SCORES[4]
    return f"""\
# Mosaic

*Lindsey Spratt, 1992. Two to four players.*

Players build a board of square tiles, then alter it edge by edge. Each tile
is cut along its diagonals into four quarters (N, E, S, W), each in one
player's colour. You try to make large regions of your colour.

## Tiles and hands

* Every colouring of the four quarters with **one or two** of the players'
  colours exists exactly once: 16 tiles for two players (8 per hand), 45 for
  three (15 each), 88 for four (22 each). Hands are dealt at random and are
  public. Tiles are **never rotated**.
* A *solid* tile has one colour; a *chevron* has three quarters of one colour.

## Regions and score

Two quarters touch when they share a side: inside a tile N-E, E-S, S-W, W-N
(never opposite quarters); across tiles a tile's E quarter touches its east
neighbour's W quarter and its S quarter its south neighbour's N quarter. A
**region** is a connected set of quarters of one colour; it is worth the
**square of the number of tiles it spans**. Your score is the sum of your
regions. (A 2x2 square of your solid and three of your chevrons with the odd
quarter facing out is one region of 4 tiles: 16 points.)

## Winning

Your score is checked each time an alteration routine **you** started is over
(mismatches resolved), or when you pass. Reach **{two}** points (two players),
**{three}** (three) or **{four}** (four) at **two such checks in a row** and you win.
If every player passes in one round, the game ends and the highest score
wins. With `--max-routines N` the game ends after N alteration routines
(a pass is not one) and the highest score wins.

## Placement constraints

* **Shape Constraint 1**: a tile added to the board needs at least two
  neighbours among the 8 surrounding positions (the first tile goes at 0,0;
  the second needs one neighbour).
* **Shape Constraint 2**: no hole may be left: an empty position with three or
  four tiles beside it (orthogonally).
* **Colour Constraint**: tiles that share an edge have the same colour along it.
* **Building Phase Constraint**: if the tile you place can go next to
  (orthogonally) the last tile placed by anyone, it must.
* **Replacement Step Constraint** (3-4 players): a replacement that would need
  three or four colours is made with the tile that has the right colour on the
  changing sides and the fewest other quarters differing.

## Building phase

In turn, from player 1, place one tile of your hand (Steps SH and P in one
move). You may choose only a tile that has a legal position; with none (an
empty hand too) you must `pass`. The phase ends when every hand is empty, or
when no player can place a tile (the tiles left stay out of play).

## Alteration phase

In turn, from player 1, each player starts an **alteration routine**:

1. **Step SE**: select an edge: two side-by-side tiles whose facing quarters
   are both not your colour. They go to your hand. You may select an edge only
   if both tiles can be replaced (upper or left tile first). With no such edge
   you must `pass`.
2. **Step R, twice**: for the upper (left) tile, then the other, choose a board
   tile with the removed tile's pattern, the selected side in your colour.
   Only that tile fits (each colouring exists once) unless the pattern would
   need three or four colours (see the Replacement Step Constraint). The
   chosen tile moves into the gap; its old place becomes empty. Tiles moved
   into place earlier in the routine cannot be chosen, nor a tile whose move
   would leave more holes than tiles you have to place back.
3. **Placing back**: put your hand tiles back on the board one at a time
   (Shape Constraint 1 and the Colour Constraint; Shape Constraint 2 is judged
   once the last tile is down). If they can all go back with no mismatch and no
   hole, you must place them so. Otherwise holes are filled first: with one
   hole, the hand tile with fewer mismatched sides there goes in it; with two,
   the hole/tile pair with the fewest mismatches first. A tile that matches
   nowhere goes where it has the fewest mismatched sides. Ties are your choice.
4. **Mismatches**: if tiles placed (or moved) in a subroutine mismatch a
   neighbour, the **next player** resolves them: for each mismatched tile (in
   reading order) she chooses a replacement (Step R) whose mismatched sides take
   the neighbours' colours; the mismatched tiles go to her hand and she places
   them back as in 3. New mismatches pass to the player after her. The routine
   ends when no mismatch is left, when no mismatched tile has a candidate, or
   after 4 x (tiles in play) Step R's; mismatches left stay on the board
   (regions do not cross them).

## Notation

Positions are `ROW,COL` relative to the first tile (0,0); rows grow downward,
columns to the right, and may be negative (`-2,3`). A tile is its quarters N E S
W as seat numbers: `1121` is N = player 1, E = player 1, S = player 2,
W = player 1.

| move | step |
|---|---|
| `1121@0,1` | place hand tile 1121 at 0,1 (building phase, and placing back) |
| `edge 0,0 0,1` | Step SE: the edge between 0,0 and 0,1 (upper or left tile first) |
| `take 2,-1` | Step R: the replacement is the tile now at 2,-1 |
| `pass` | only when nothing else is legal |

`termgames show` draws each tile as a block with a seat number per quarter; `!`
marks a mismatched side, `[R]` the position being replaced and `hole` a hole.

## Rulings you may notice

* "The last tile placed" (Building Phase Constraint) is the last tile placed by anyone.
* The edge's upper (or left) tile is replaced first, and a replacement for it
  is offered only if the other tile can still be replaced afterwards.
* Mismatched tiles are resolved in reading order (top row first, left to
  right); a tile whose mismatch an earlier replacement cured is skipped.
* A tile *moved* into place by Step R counts as placed: if it mismatches (a
  three- or four-colour replacement, or a neighbour placed later), it is
  resolved like a placed-back tile.
* Mismatches left by a mismatch subroutine pass to the next player again,
  round the table, until none is left, none has a candidate, or the routine
  has made 4 Step R's per tile in play.
* A pass in the alteration phase is no alteration routine: `--max-routines` does not count it.
* Every move is one step, so undo takes back one step.
"""

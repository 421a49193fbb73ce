"""Monad's rules as ``termgames rules monad`` prints them (Markdown)."""

RULES = """\
# Monad

*Dartmouth 18w-si32. 2 to 4 players, usually bots.*

Players command **units** on a hexagonal map. Units **mine** resources,
**build** hives with them (100 resources each) and **fight**. Hives make new
units. The goal is to be the only player left holding hives.

Turns are **simultaneous**: every player sends its commands
for the turn (in any order); the turn is carried out when the last player's
commands arrive. Nobody sees another player's commands before the turn is
carried out.

## The map

* 20 by 20 cells by default (`--width W --height H`, 6 to 60 each). Cell
  `X,Y`: column X from 0 at the left, row Y from 0 at the **top**.
* Offset hex rows, **even rows shifted right**. Six directions:
  `E W NE NW SE SW`.

  | from | NE | NW | E | W | SE | SW |
  |---|---|---|---|---|---|---|
  | even row (x, y) | x+1, y-1 | x, y-1 | x+1, y | x-1, y | x+1, y+1 | x, y+1 |
  | odd row (x, y) | x, y-1 | x-1, y-1 | x+1, y | x-1, y | x, y+1 | x-1, y+1 |

* Every free cell starts with 0 to 50 resources. Obstacles are optional
  (`--obstacles DENSITY`, about that share of the cells, from 0 to 0.5;
  default 0; e.g. `--obstacles 0.1`):
  no unit may enter an obstacle and it holds no resources.
* Maps are **symmetric** and drawn from the seed: with two players the
  180-degree rotation (x, y) -> (W-1-x, H-1-y) maps resources and obstacles
  onto themselves (an exact symmetry of the hex grid when H is even); with
  three or four players each player's start region (the cells nearer its start
  cell than any other; ties go to the earlier seat) holds the same total of
  resources and the same number of obstacles. Start cells are never
  obstacles, and every start cell can reach every other.
* Start cells (on 20x20; scaled for other sizes): two players (1,1) and
  (18,18), that is (1,1) and (W-2,H-2); three (5,5), (10,14), (15,5); four
  (5,5), (5,15), (15,5), (15,15), in seat order.

## Start

Each player has **one unit** on its start cell, **100 resources**, and no hive.

## Commands and notation

A move is the player's commands for one turn, separated by `;`:

* `X,Y N MOVE DIR` — move N of your units on cell X,Y one cell in direction DIR
  (`E W NE NW SE SW`);
* `X,Y N MINE` — N units on X,Y mine;
* `X,Y N BUILD` — N units on X,Y build a hive there, or help the hive there
  produce;
* `pass` (or nothing) — no command.

Example: `3,4 2 MOVE NE; 5,5 1 MINE; 1,1 1 BUILD`. Words may be upper or
lower case, spaces are free around the numbers, and a new line may separate
commands too; records keep each move in the form above. N is a whole number,
at least 1; coordinates have at most 9 digits and counts at most 4,000. A move that cannot be read at all
(`3,4 2 JUMP`) is refused and the player sends another.

A cell may get several commands; they are taken in the order given. A command
that can be read but not carried out is **dropped** (ruling 4), with the reason
in the turn's log; the rest of the turn stands:

* the cell holds none of your units (or is off the map);
* N is 0, or more than your units on the cell not yet given a command this turn;
* a MOVE would leave the map or enter an obstacle.

Nothing else is dropped: a BUILD on a cell without a hive when you have fewer
than 100 resources, or when another player's units moved into the cell this
turn, and a MINE on a cell with a hive or with no resources left, are carried
out and do nothing (the turn's log notes it, "no effect").

Units given no command stay where they are and do nothing.

A move `fault REASON` stands for a player whose commands were lost this turn
(a bot that was late, crashed or answered something unreadable): it is an
empty move, and `fault: REASON` is reported among that player's dropped
commands. REASON is printable text on one line (spaces and line breaks become
one space; an escape sequence, a control character or a bidi override is
refused), at most 300 characters (a longer one is cut).

## One turn, in order

1. **Collisions.** When units of two players on adjacent cells move into each
   other's cell, the two groups meet on the way: the smaller group is
   eliminated and the larger loses as many units (equal groups: both are
   eliminated). The units lost are taken from the groups that moved; the
   survivors go on.
2. **Moves.** All remaining moving units arrive at once.
3. **Builds.** A BUILD on a cell without a hive builds one for its player if
   she has at least 100 resources (it costs 100) and no other player's units
   stand in the cell after the moves; one hive per cell. A BUILD on your own
   hive's cell helps it produce (below).
4. **Mining.** Each mining unit takes one resource from its cell into its
   player's resources (fewer if fewer remain). A cell with a hive cannot be
   mined.
5. **Each cell's update.**
   * **Combat.** Where units of several players meet, the largest force loses
     as many units as the second largest has and all the others are
     eliminated; if the largest forces are equal, all are eliminated.
     *Example: A 12, B 8, C 10 units in a cell: A keeps 2, B and C lose all.*
   * **Hive defence.** A hive fights as 10 extra defenders that come back
     every turn. Attackers of several players first fight each other (as
     above); the survivor, with `a` units, attacks the hive and its owner's
     `u` units:
     * `a >= u + 10`: the hive and its `u` units are destroyed; `a - u - 10`
       attackers remain in the cell;
     * `10 <= a < u + 10`: all attackers die and the owner loses `a - 9`
       units; the hive stands;
     * `a < 10`: all attackers die; nothing else happens.

     The rules' examples: no defenders, 8 attackers: the 8 die, the hive
     stands; no defenders, 10 attackers: all 10 are lost, the hive is
     destroyed; 3 defenders, 8 attackers: the 8 die; 3 defenders, 15
     attackers: the hive and the 3 are destroyed and 2 attackers remain;
     3 defenders, 12 attackers: the 12 die and the hive loses its 3 units;
     3 defenders, 13 attackers: the hive and the 3 are destroyed, no attacker
     remains.
   * **Production.** Every hive still standing gains one production point,
     plus one for each unit of its owner given BUILD on its cell this turn
     (the builders of a new hive included); every 5 points become one new unit
     in the hive's cell, the rest carries over.
6. **Victory** (checked after every turn):
   * a player **wins** when it is the only one holding hives and every other
     player has lost its last hive or holds neither hive nor unit;
   * at the turn limit (2000 by default, `--turns N`) the player with the most
     units wins; equal most units is a **draw**.

## Decisions taken where the rules are silent

Where the rules page and the rulings say nothing, termgames decided as
follows, after the original engine wherever it had an answer:

* Each cell holds the units of at most one player at the end of a turn; a
  hive's cell holds only its owner's units.
* Commands are checked against the units on the cell at the start of the turn:
  units that arrive during a turn cannot be commanded until the next one
  (the original checked them one by one as it moved units).
* Units without a command do nothing (the original made them mine; the rulings
  say they stay idle).
* Every player sends a move every turn, even one left with no hive and no
  unit (it can only pass; bots in such a seat are no longer asked and pass). A
  player who has lost its last hive but still has units keeps playing them and
  may build again.
* A match ends only by victory or at the turn limit (ruling 9), even when no
  unit is left on the map or only one player has units and no hive: the turn
  limit then declares the result.
* A hive that is destroyed loses its production points; a new hive starts at 0.
* Builders count toward production even if the hive's defence cost them
  their lives that turn (the ruling counts the units given BUILD).
* Mining an empty cell takes nothing; it is not dropped (ruling 4 lists what
  is), but the turn's log notes it ("no resources left there", no effect), so a
  bot's author sees that its miners should move on.
* Several commands may name the same cell, direction and action: they add up.
* At the turn limit only units count (the original ranked by hives first; the
  rulings say units).
* Unit counts have no cap: units BUILDing on their hive multiply by about 1.2 a
  turn, past 1e300 in 4,000 turns. They are whole numbers, kept exact in the
  score, records and JSON and compared exactly; what bounds them is the
  notation (a count has at most 4,000 digits and a move at most 200,000
  characters), so no count can pass about 4,010 digits. Screens and text
  write a count of more than 12 digits short: `1.234e309`.
* Maps are random from the seed; obstacles are scattered at random within the
  density (the original's barrier layouts are not used). A map whose start
  cells cannot reach each other is drawn again (as the original did), with
  the density halved after every 20 failed draws.

## Rulings you may notice

* There is no starting hive (the original gave one): build your first hive
  with your starting 100 resources.
* Production points come from time and from builders, not from resources.
* Collisions happen only between units moving into each other's cells;
  units moving into the same cell fight there after the moves.
* When several players attack a hive in the same turn they first fight each
  other; only the survivor meets the hive (the original let the hive's 10
  join that fight).
* A hive's new units appear in the turn its fifth point is earned (the
  original made them a turn later).
* The turn limit is 2000 turns (the original stopped at 1000); the match ends
  once the limit's last turn is carried out.

## For bot authors

`termgames monad trace FILE` prints a record as JSON lines, one per turn:
`{"turn": t, "commands": {name: [[x, y, n, "MOVE", "NE"], [x, y, n, "MINE"], ...]},
"dropped": {name: [reason, ...]}, "board": ...}` (the commands carried out and
those dropped; turn 0 is the starting board). `termgames show --json FILE`
gives the board as `{"width", "height", "turn", "limit", "resources": {name: n},
"units": {name: n}, "hives": {name: n}, "cells": [[cell, ...], ...]}`, one row
per y with the top row first; a cell is `{"resources": r}` plus, when present,
`"obstacle": true`, `"hive": NAME, "production": points`, `"owner": NAME,
"units": n`.

## Text map (termgames show)

Each cell is three characters: `a12` is 12 units of the first player (`b`,
`c`, `d` the others; `a 5` five units, `a++` a hundred or more), `A12` the
same on its own hive, `A` alone a hive without units, a bare number the cell's resources (`.` none), `###` (or a shaded
block) an obstacle. Even rows are drawn shifted right, as on the hex grid.
"""

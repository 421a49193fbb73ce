"""Monad starter bot: copy me, then run  termgames monad match my-bot.py greedy --watch

Builds a hive at once, then keeps its units BUILDing on it (each adds a production point;
five points make a unit) and sends the units of other cells to mine.  See docs/scripting.md.
"""


def turn(observation):
    me, commands = observation["me"], []
    for y, row in enumerate(observation["cells"]):
        for x, cell in enumerate(row):
            if cell.get("owner") != me:
                continue
            n = cell["units"]
            if cell.get("hive") == me or (observation["resources"][me] >= 100 and "hive" not in cell):
                commands.append([x, y, n, "BUILD"])
            elif cell["resources"] > 0:
                commands.append([x, y, n, "MINE"])
    return commands

"""What a player of ``termgames serve`` sees: the server's Textual app and its screens.

* :mod:`.host`: :class:`~.host.ServeHost`, what the screens need of their app;
* :mod:`.lobby`: the lobby (every table to resume, join, watch or replay) and the new-table form;
* :mod:`.shared_game`: any game's screen made a shared table's (who is here, chat, undo by request);
* :mod:`.app`: :class:`~.app.ServeApp`, one per SSH channel, which shows them.
* :mod:`.driver`: Textual over one SSH channel, and many apps on the server's one loop.

Above the server's core (the hub, the stores, the commands import no Textual) and the termgames
screens; the SSH front door (:mod:`termgames.server.ssh`) starts one app per channel.
"""

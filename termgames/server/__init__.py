"""``termgames serve``: shared tables played over SSH.

* :mod:`.store`: SQLite (WAL) tables, seats, moves, player keys and the table each player is at;
* :mod:`.hub`: the live tables in memory, their subscribers, AI seats (``termgames.turns``) and undo requests;
* :mod:`.shared`: :class:`SharedTable`, a hub table seen from one seat, a ``termgames.table.Table``;
* :mod:`.commands`: the correspondence commands (``challenge``, ``tables``, ``show``, ``move``);
* :mod:`.ssh`: the asyncssh server, identities and one Textual app per SSH channel.

Nothing here but :mod:`.ssh` and :mod:`.app` imports asyncssh or Textual.  Everything runs on the
server's one event loop: only bots think in the hub's thread pool, and the store and the hub refuse
any other thread (``store.require_thread``).
"""

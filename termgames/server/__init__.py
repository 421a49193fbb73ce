"""``termgames serve``: shared tables played over SSH.

* :mod:`.store`: SQLite (WAL) tables, seats, moves and player keys;
* :mod:`.hub`: the live tables in memory, their subscribers, AI seats and undo requests;
* :mod:`.shared`: :class:`SharedTable`, a hub table seen from one seat with ``LocalTable``'s interface;
* :mod:`.commands`: the correspondence commands (``challenge``, ``tables``, ``show``, ``move``);
* :mod:`.ssh`: the asyncssh server, identities and one Textual app per SSH channel.

Nothing here but :mod:`.ssh` and :mod:`.app` imports asyncssh or Textual.
"""

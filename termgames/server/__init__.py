"""``termgames serve``: shared tables played over SSH.

From the bottom up:

* :mod:`.stores`: the server's memory: the interface, the SQLite store (one process) and the PostgreSQL
  one (many processes sharing a database), and the choice between them;
* :mod:`.people`: player and guest names, and whom a table or a chat line counts against;
* :mod:`.tables`: the live tables in memory, their subscribers, AI seats (``termgames.turns``) and undo
  requests; :mod:`.hub` holds every table (with :mod:`.news`, the other servers sharing its store, and
  :mod:`.idle`, closing idle tables);
* :mod:`.shared`: :class:`~.shared.SharedTable`, a hub table seen from one seat, a ``termgames.table.Table``;
* :mod:`.notices`: a notice of her move wherever a player is connected, and :mod:`.mail` when she is not;
* :mod:`.commands`: the correspondence commands (``challenge``, ``tables``, ``show``, ``move``; ``notify``:
  :mod:`.notify`);
* :mod:`.ui`: the server's Textual app, its lobby and shared-table screens, and Textual over SSH;
* :mod:`.ssh`: the asyncssh server, identities and one app per SSH channel; :mod:`.run` runs it.

Nothing here but :mod:`.ui` imports Textual, and nothing but :mod:`.ssh` asyncssh.  Everything runs on
the server's one event loop: only bots think in the hub's thread pool, and the store and the hub refuse
any other thread (:func:`~.stores.interface.require_thread`).
"""

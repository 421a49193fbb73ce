"""Play in a browser: the page, its websocket, and one in-process Textual app per browser session.

* :mod:`.session`: :class:`BrowserSession`, one running app and the websocket
  attached to it now (none for a while after a dropped connection: a reload or
  a new connection within the grace period attaches again to the same app),
  and :class:`SessionRegistry`, the sessions of one server with their limits;
* :mod:`.driver`: :class:`BrowserDriver`, Textual's terminal as one browser
  session (the SSH server's channel driver, with the mouse and the page's
  news: its title, its key buttons, the screen's minimum size);
* :mod:`.screen_info`: what the page shows beside the terminal, read from the
  app's screens;
* :mod:`.pages`: the aiohttp application: the page and its assets (nothing
  from another host), the websocket speaking textual-serve's protocol, and the
  gate that lets in only those signed in;
* :mod:`.local`: ``termgames web``, the start screen for one person, opened by
  a link with a random token.

Nothing here is imported by ``termgames --help``: the CLI imports it inside
the command.
"""

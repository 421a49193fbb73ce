"""The widgets: boards drawn with Textual's Line API (one per game, on :mod:`.board`), the side panel, the clocks, the
footer and the move log."""

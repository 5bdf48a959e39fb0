"""Ella's lazy world: what is worked out only when something reads it (tickers, image anchors).

- ``ella.world.tickers``: the subjects ticked on read (weather, mood, the book she is reading, small happenings),
  each a cheap deterministic function of the previous value, the time and the user's world; ``ella.world.lazy``
  decides whether a cached value is fresh. The Redis watermark cache and the ledger writes are wiring, in
  ``adapters.world_cache``.
- ``ella.world.images``: image anchors, drawn on the first reference and never again.
"""

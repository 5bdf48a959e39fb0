"""Ella's lazy world: what is worked out only when something reads it (tickers, image anchors)."""

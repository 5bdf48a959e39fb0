"""The model port: every cognitive step calls a model through here, by prompt kind, with typed results."""

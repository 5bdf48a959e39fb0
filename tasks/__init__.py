"""Celery tasks: thin wrappers that load, call the domain, persist and emit the next event."""

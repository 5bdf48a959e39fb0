"""Process wiring: the Celery app, settings, database and Redis lifecycle, the CLI, embedded services."""

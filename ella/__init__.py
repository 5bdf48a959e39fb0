"""Ella's domain: plain Python with no Celery and no database sessions."""

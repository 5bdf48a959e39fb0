"""Alembic migrations; a package so that an installed project carries them."""

"""Ella reaching out: notification candidates, what grounds them, and whether one may be sent now."""

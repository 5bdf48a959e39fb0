"""Ella's memory stream, independent of where it is stored: how memories are scored and retrieved.

``retrieval`` holds the scoring (recency, importance, relevance) that the database-backed memory and the
in-memory store share, so a benchmark on one measures the other; ``locomo`` measures it on LoCoMo.
"""

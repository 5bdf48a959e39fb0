"""``ella demo``: the main job on the embedded default (SQLite, embedded Redis, the offline engine), and the stack
of real worker processes it runs on (``stack``, also used by ``ella chat``).
"""

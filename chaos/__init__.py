"""The chaos suite: faults against a private Redis, a private PostgreSQL and real worker subprocesses.

Run it with ``make chaos`` (or ``python -m chaos``); ``CHAOS_FAULTS=redis_kill9,worker_kill9`` runs some.
It is not part of ``make test``: it takes minutes. Each fault's line is judged (``chaos.judging``) and the run
exits non-zero when one fails.
"""

"""The guard's language model loaded in a test worker's main process, before its pool forks (``-I`` of every
``start_worker`` worker, tests/conftest.py).

``ella.guard.language`` loads py3langid's model on a process's first message (about 1.3 s of CPU on an idle
machine, 4-5 s with the suite's other processes running): in a prefork worker that is inside the first task of
each pool child, under the suite's 5 s soft time limit (conftest: short limits so redelivery takes seconds), and
there it raised SoftTimeLimitExceeded and dead-lettered ordinary messages whenever the machine was busy. Loaded
here, the children inherit it through fork: no task pays for it and two children do not each load it again.
Production's soft limit (540 s) leaves the lazy load harmless; what a test asserts is unchanged.
"""

from __future__ import annotations

from ella.guard.language import _identifier

_identifier()

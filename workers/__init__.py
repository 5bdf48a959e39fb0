"""The Celery process wiring: the app (``app``), task names' routes (``routing``), the emits between tasks
(``events``, sent by ``effects``), the reliability base class (``reliability``), the envelope checks
(``envelopes``), the broker's mends (``broker_patches``, ``consumer``), worker processes (``procs``), logs, and
Flower's auth (``flower_auth``). What these wire together lives elsewhere: adapters in ``adapters/``, tasks in
``tasks/``, the CLI in ``cli/``, the operator's page in ``operator_page/``, the demo in ``demo/``, the gateway's
client in ``gateway/`` (``docs/architecture.md``).
"""

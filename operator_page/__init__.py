"""What the operator opens: the read-only inspection page (``page``, ``ella inspect``, ``templates/``) and the
Prometheus endpoint (``metrics_endpoint``, ``ella metrics serve``), both behind basic auth on every path.

Flower's own auth stays with the Celery process wiring (``workers.flower_auth``): Flower is a Celery process, and
its page handlers are patched at that process's start.
"""

"""The gateway's client in Python (``gateway.client``): what a gateway on our stack imports to talk to Ella.

A gateway on another stack uses the standalone clients in ``clients/`` (``clients/python``, ``clients/node``),
which import nothing of ours; both speak the contract in ``docs/gateway.md``.
"""

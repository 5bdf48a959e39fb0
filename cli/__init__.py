"""The ``ella`` command (``cli.main:main``): one module per group of subcommands, ``chat`` for the terminal.

An entry point: it may import every floor below it; nothing below imports it (``tests/test_architecture.py``).
"""

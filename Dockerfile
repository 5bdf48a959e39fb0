# syntax=docker/dockerfile:1
#
# One image for every process of the back end: `ella db upgrade`, the Celery workers, beat and Flower.
# The compose file picks the process by its command. No secret is baked in: URLs and keys come from the
# environment at run time (ELLA_*, FLOWER_BASIC_AUTH).

# --- build: a virtualenv holding the project (a regular, non-editable install) and its dependencies ---
FROM python:3.11-slim AS build

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH

WORKDIR /src

# Dependencies first, from pyproject.toml alone (at the versions constraints.txt pins), so a code change does
# not reinstall them.
COPY pyproject.toml constraints.txt ./
RUN python -c "import tomllib; print(*tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies'], sep=chr(10))" \
        > requirements.txt \
    && pip install -c constraints.txt -r requirements.txt

# Everything the wheel packages (pyproject.toml: packages.find include, py-modules, package data such as
# migrations/script.py.mako). tests/test_docker_compose.py checks this list against pyproject.toml.
COPY README.md beat_schedule.py ./
COPY adapters ./adapters
COPY workers ./workers
COPY tasks ./tasks
COPY models ./models
COPY ella ./ella
COPY migrations ./migrations
COPY cli ./cli
COPY operator_page ./operator_page
COPY demo ./demo
COPY gateway ./gateway
RUN pip install -c constraints.txt . \
    && python -c "import beat_schedule, migrations, cli.main"

# --- runtime: the virtualenv only (no source tree, no build leftovers), run by an unprivileged user ---
FROM python:3.11-slim

ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1

RUN groupadd --system --gid 10001 ella \
    && useradd --system --uid 10001 --gid ella --create-home --home-dir /home/ella --shell /usr/sbin/nologin ella

# Owned by root: the process can read its code but not rewrite it.
COPY --from=build /opt/venv /opt/venv

# The working directory is where the embedded default (unset ELLA_DATABASE_URL / ELLA_REDIS_URL) keeps var/,
# so the user may write there; in compose both URLs are set and nothing is written.
WORKDIR /app
# var/images exists in the image, owned by the user, so the compose volume mounted there starts writable.
RUN mkdir -p /app/var/images && chown -R ella:ella /app

# The boundary regression corpus the nightly beat task runs comes with the package (ella/guard/data/, package
# data), so ELLA_GUARD_CORPUS_PATH needs no setting here.

USER 10001:10001

CMD ["ella", "--help"]
